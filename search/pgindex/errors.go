package pgindex

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/agentfiles/agentfiles"
	"github.com/jackc/pgx/v5/pgconn"
)

// Codes lists every code an Index returns: INVALID_CONFIG from New, INVALID_ARGUMENT for a
// malformed IndexedFile, UNAVAILABLE when PostgreSQL cannot be reached, SEARCH_BACKEND_ERROR
// when a statement fails, and TIMEOUT and CANCELED when the context ends.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		agentfiles.CodeInvalidConfig, agentfiles.CodeInvalidArgument, agentfiles.CodeUnavailable,
		agentfiles.CodeSearchBackendError, agentfiles.CodeTimeout, agentfiles.CodeCanceled,
	}
}

// backendError hides database details behind a coded error: UNAVAILABLE (retryable) when the
// database cannot be reached, SEARCH_BACKEND_ERROR otherwise. Coded errors and context errors
// pass through.
func backendError(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil && (errors.Is(err, ctxErr) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return ctxErr
	}
	var e *agentfiles.Error
	if errors.As(err, &e) {
		return err
	}
	if unreachable(err) {
		return agentfiles.WrapError(agentfiles.CodeUnavailable, "the PostgreSQL search index cannot be reached while "+what+"; retry later", "", err)
	}
	return agentfiles.WrapError(agentfiles.CodeSearchBackendError, "the PostgreSQL search index failed while "+what+"; retry later", "", err)
}

// SQLSTATEs that say the server cannot serve connections right now.
const (
	sqlClassConnection    = "08" // connection_exception and its subclasses
	sqlTooManyConnections = "53300"
	sqlAdminShutdown      = "57P01"
	sqlCrashShutdown      = "57P02"
	sqlCannotConnectNow   = "57P03"
)

// unreachable reports whether err says that the database cannot be reached right now, as
// opposed to a failing statement: the connection was refused, reset or closed, the pool could
// not open one, or the server is shutting down, starting up or out of connection slots.
func unreachable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case sqlTooManyConnections, sqlAdminShutdown, sqlCrashShutdown, sqlCannotConnectNow:
			return true
		}
		return strings.HasPrefix(pe.Code, sqlClassConnection)
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connectErr), errors.As(err, &netErr), pgconn.SafeToRetry(err),
		errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	return false
}
