// Package pgoutage tells a PostgreSQL outage from a failing statement, so that the packages
// with PostgreSQL backends (fileio/pgstore, search/pgindex) report the same failures as
// agentfiles.CodeUnavailable (retry later) and nothing else.
package pgoutage

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// SQLSTATEs that say the server cannot serve the connection right now.
const (
	classConnection    = "08" // connection_exception and its subclasses
	tooManyConnections = "53300"
	adminShutdown      = "57P01" // shutting down, or the backend was terminated
	crashShutdown      = "57P02"
	cannotConnectNow   = "57P03" // starting up or in recovery
)

// Is reports whether err says that the database cannot be reached right now, as opposed to a
// statement that failed: the connection was refused, reset or closed, the pool could not open
// one, or the server is shutting down, starting up or out of connection slots.
func Is(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case tooManyConnections, adminShutdown, crashShutdown, cannotConnectNow:
			return true
		}
		return strings.HasPrefix(pe.Code, classConnection)
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
