package pgindex

import (
	"context"
	"errors"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/pgoutage"
	"github.com/agentfiles/agentfiles/search"
	"github.com/jackc/pgx/v5/pgconn"
)

// Codes lists every code an Index returns: INVALID_CONFIG from New and Reembed, and from
// ReplaceFile for vectors of another embedder than the database's, INVALID_ARGUMENT for a
// malformed IndexedFile, UNAVAILABLE when PostgreSQL cannot be reached, RESOURCE_BUSY when a
// statement outlives Options.StatementTimeout, SEARCH_BACKEND_ERROR when a statement fails
// otherwise, and TIMEOUT and CANCELED when the context ends.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		agentfiles.CodeInvalidConfig, agentfiles.CodeInvalidArgument, agentfiles.CodeUnavailable, agentfiles.CodeResourceBusy,
		search.CodeSearchBackendError, agentfiles.CodeTimeout, agentfiles.CodeCanceled,
	}
}

// backendError hides database details behind a coded error: UNAVAILABLE (retryable) when the
// database cannot be reached, INVALID_CONFIG when the embedder check refused vectors,
// SEARCH_BACKEND_ERROR otherwise. Coded errors and context errors pass through.
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
	if pe, ok := embedderMismatch(err); ok {
		return agentfiles.WrapError(agentfiles.CodeInvalidConfig, pe.Message, "", err)
	}
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "57014" { // query_canceled
		// The context has not ended (checked above): the statement outlived statement_timeout.
		return agentfiles.WrapError(agentfiles.CodeResourceBusy, "the PostgreSQL search index took longer than its statement timeout while "+what+
			"; retry, or narrow the query (fewer terms, a path_prefix)", "", err)
	}
	if pgoutage.Is(err) {
		return agentfiles.WrapError(agentfiles.CodeUnavailable, "the PostgreSQL search index cannot be reached while "+what+"; retry later", "", err)
	}
	return agentfiles.WrapError(search.CodeSearchBackendError, "the PostgreSQL search index failed while "+what+"; retry later", "", err)
}
