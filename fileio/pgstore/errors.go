package pgstore

import (
	"context"
	"errors"
	"log/slog"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/internal/pgoutage"
	"github.com/jackc/pgx/v5/pgconn"
)

// SQLSTATE codes the store treats specially.
const (
	sqlLockNotAvailable   = "55P03" // lock_timeout expired
	sqlQueryCanceled      = "57014" // statement_timeout expired, or a cancel request
	sqlSerialization      = "40001"
	sqlDeadlock           = "40P01"
	sqlStringTooLong      = "22001"
	sqlCharNotInRepertory = "22021" // invalid UTF-8 or NUL in a text value
)

// Messages of the errors a transaction can end with.
const (
	msgLockTimeout = "another write to this project held its lock for too long; retry shortly"
	msgUnavailable = "the file store's database is unreachable and nothing was changed; retry later"
	msgLost        = "the file store's database became unreachable while committing; the change may or may not " +
		"have been saved, so check its result before retrying"
)

// storeError turns a driver or server error into a coded *agentfiles.Error whose message holds
// no SQL, connection string or file content (the cause stays reachable through errors.Unwrap for
// logs): RESOURCE_BUSY for lock timeouts and conflicts, UNAVAILABLE when the database cannot be
// reached (refused, reset or dropped connections, a server shutting down or starting up, no
// connection slot), INVALID_ARGUMENT for values the schema cannot hold, TIMEOUT for a statement
// cancelled by its statement_timeout, INTERNAL for anything else. Context errors pass through unchanged, as memstore returns them, and so do
// *agentfiles.Error values (from a callback).
func (s *Store) storeError(ctx context.Context, op string, scope fileio.Scope, err error) error {
	if err == nil {
		return nil
	}
	var fe *agentfiles.Error
	if errors.As(err, &fe) {
		return err
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case sqlLockNotAvailable:
			return agentfiles.WrapError(agentfiles.CodeResourceBusy, msgLockTimeout, scope.Project, err)
		case sqlQueryCanceled:
			return agentfiles.WrapError(agentfiles.CodeTimeout,
				"the request ran out of time in the file store and nothing was changed; retry it, or make it smaller", scope.Project, err)
		case sqlSerialization, sqlDeadlock:
			return agentfiles.WrapError(agentfiles.CodeResourceBusy,
				"the write conflicted with a concurrent one and was rolled back; retry it", scope.Project, err)
		case sqlStringTooLong:
			return agentfiles.WrapError(agentfiles.CodeInvalidArgument,
				"a tenant, project or path is longer than the store allows (64, 128 and 1024 characters)", "", err)
		case sqlCharNotInRepertory:
			return agentfiles.WrapError(agentfiles.CodeInvalidArgument,
				"a project, path or file content is not valid UTF-8, or a project or path contains a NUL character", "", err)
		}
	}
	if pgoutage.Is(err) {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "pgstore: "+op+": database unreachable",
			slog.String("project", scope.Project), slog.String("error", err.Error()))
		if op == opCommit {
			return agentfiles.WrapError(agentfiles.CodeUnavailable, msgLost, "", err)
		}
		return agentfiles.WrapError(agentfiles.CodeUnavailable, msgUnavailable, "", err)
	}
	s.logger.LogAttrs(ctx, slog.LevelError, "pgstore: "+op+" failed",
		slog.String("project", scope.Project), slog.String("error", err.Error()))
	if op == opCommit {
		return agentfiles.WrapError(agentfiles.CodeInternal,
			"the file store failed while committing; the change may or may not have been saved, so check its result before retrying", "", err)
	}
	return agentfiles.WrapError(agentfiles.CodeInternal,
		"the file store failed and nothing was changed; retry later", "", err)
}
