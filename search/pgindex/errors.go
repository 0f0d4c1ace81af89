package pgindex

import (
	"context"
	"errors"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/pgoutage"
	"github.com/agentfiles/agentfiles/internal/pgpool"
	"github.com/agentfiles/agentfiles/search"
)

// Codes lists every code an Index returns: INVALID_CONFIG from New and Reembed, and from
// ReplaceFile for vectors of another embedder than the database's, and for a missing
// privilege, INVALID_ARGUMENT for a malformed IndexedFile or a value the schema cannot hold,
// UNAVAILABLE when PostgreSQL cannot be reached, RESOURCE_BUSY for a lock or serialization
// conflict, TIMEOUT when a statement outlives Options.StatementTimeout (as in pgstore) and when
// the context's deadline passes, CANCELED when the context is canceled, MODEL_ERROR when the
// embedder answers with the wrong vectors, and SEARCH_BACKEND_ERROR when a statement fails
// otherwise.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		agentfiles.CodeInvalidConfig, agentfiles.CodeInvalidArgument, agentfiles.CodeUnavailable, agentfiles.CodeResourceBusy,
		search.CodeSearchBackendError, agentfiles.CodeTimeout, agentfiles.CodeCanceled, agentfiles.CodeModelError,
	}
}

// backendError hides database details behind a coded error: UNAVAILABLE (retryable) when the
// database cannot be reached, INVALID_CONFIG when the embedder check refused vectors, the code
// of pgpool.Classify's table (which pgstore shares) for the SQLSTATEs it knows,
// SEARCH_BACKEND_ERROR otherwise. Coded errors pass through; an ended context is TIMEOUT or
// CANCELED (agentfiles.ContextError).
func backendError(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil && (errors.Is(err, ctxErr) || agentfiles.ContextError(err) != nil) {
		return agentfiles.ContextError(ctxErr)
	}
	var e *agentfiles.Error
	if errors.As(err, &e) {
		return err
	}
	if pe, ok := embedderMismatch(err); ok {
		return agentfiles.WrapError(agentfiles.CodeInvalidConfig, pe.Message, "", err)
	}
	switch state, code, ok := pgpool.Classify(err); {
	case !ok:
	case state == pgpool.SQLQueryCanceled:
		// The context has not ended (checked above): the statement outlived statement_timeout.
		return agentfiles.WrapError(code, "the PostgreSQL search index took longer than its statement timeout while "+what+
			"; retry, or narrow the query (fewer terms, a path_prefix)", "", err)
	case state == pgpool.SQLInsufficientPrivilege:
		return pgpool.Err("pgindex", what, err)
	default:
		return agentfiles.WrapError(code, "the PostgreSQL search index refused a value or a concurrent change while "+what+"; retry, or check the file's path", "", err)
	}
	if pgoutage.Is(err) {
		return agentfiles.WrapError(agentfiles.CodeUnavailable, "the PostgreSQL search index cannot be reached while "+what+"; retry later", "", err)
	}
	return agentfiles.WrapError(search.CodeSearchBackendError, "the PostgreSQL search index failed while "+what+"; retry later", "", err)
}
