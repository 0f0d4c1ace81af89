package pgstore

import (
	"context"
	"errors"
	"log/slog"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/pgoutage"
	"github.com/agentfiles/agentfiles/internal/pgpool"
	"github.com/jackc/pgx/v5/pgconn"
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
// cancelled by its statement_timeout, INVALID_CONFIG for a missing privilege, INTERNAL for
// anything else; the codes of SQLSTATEs come from the table pgindex shares (pgpool.Classify).
// An ended context is TIMEOUT or CANCELED (agentfiles.ContextError, its cause kept), and
// *agentfiles.Error values (from a callback) pass through.
func (s *Store) storeError(ctx context.Context, op string, scope driver.Scope, err error) error {
	if err == nil {
		return nil
	}
	var fe *agentfiles.Error
	if errors.As(err, &fe) {
		return err
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return agentfiles.ContextError(ctxErr)
	}
	if cerr := agentfiles.ContextError(err); cerr != nil {
		return cerr
	}
	if state, code, ok := pgpool.Classify(err); ok {
		switch state {
		case pgpool.SQLLockNotAvailable:
			return agentfiles.WrapError(code, msgLockTimeout, scope.Project, err)
		case pgpool.SQLQueryCanceled:
			return agentfiles.WrapError(code,
				"the request ran out of time in the file store and nothing was changed; retry it, or make it smaller", scope.Project, err)
		case pgpool.SQLSerializationFailure, pgpool.SQLDeadlockDetected:
			return agentfiles.WrapError(code,
				"the write conflicted with a concurrent one and was rolled back; retry it", scope.Project, err)
		case pgpool.SQLStringTooLong:
			return agentfiles.WrapError(code,
				"a tenant, project or path is longer than the store allows (64, 128 and 1024 characters)", "", err)
		case pgpool.SQLCharNotInRepertoire:
			return agentfiles.WrapError(code,
				"a project, path or file content is not valid UTF-8, or a project or path contains a NUL character", "", err)
		case pgpool.SQLInsufficientPrivilege:
			return pgpool.PoolErr(s.pool, "pgstore", op, err)
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

// sqlQuotaExceeded is the SQLSTATE of migration 0014's quota check (mcp_files_quota_guard).
const sqlQuotaExceeded = "AFQ01"

// quotaError is the *driver.QuotaError of a refused quota check, nil for any other error.
func quotaError(err error) *driver.QuotaError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == sqlQuotaExceeded {
		return driver.ParseQuotaError(pe.Message)
	}
	return nil
}
