package pgstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/jackc/pgx/v5/pgconn"
)

// SQLSTATE codes the store treats specially.
const (
	sqlLockNotAvailable   = "55P03" // lock_timeout expired
	sqlSerialization      = "40001"
	sqlDeadlock           = "40P01"
	sqlStringTooLong      = "22001"
	sqlCharNotInRepertory = "22021" // invalid UTF-8 or NUL in a text value
)

// storeError turns a driver or server error into a coded *fileio.Error whose message holds no
// SQL, connection string or file content (the cause stays reachable through errors.Unwrap for
// logs). Context errors pass through unchanged, as memstore returns them. *fileio.Error values
// (from a callback) pass through too.
func (s *Store) storeError(ctx context.Context, op string, scope fileio.Scope, err error) error {
	if err == nil {
		return nil
	}
	var fe *fileio.Error
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
			return fileio.WrapError(fileio.CodeResourceBusy, fmt.Sprintf(
				"another write to this project held its lock for more than %s; retry shortly", s.lockTimeout), scope.Project, err)
		case sqlSerialization, sqlDeadlock:
			return fileio.WrapError(fileio.CodeResourceBusy,
				"the write conflicted with a concurrent one and was rolled back; retry it", scope.Project, err)
		case sqlStringTooLong:
			return fileio.WrapError(fileio.CodeInvalidArgument,
				"a tenant, project or path is longer than the store allows (64, 128 and 1024 characters)", "", err)
		case sqlCharNotInRepertory:
			return fileio.WrapError(fileio.CodeInvalidArgument,
				"a project or path is not valid UTF-8 or contains a NUL character", "", err)
		}
	}
	s.logger.LogAttrs(ctx, slog.LevelError, "pgstore: "+op+" failed",
		slog.String("project", scope.Project), slog.String("error", err.Error()))
	if op == opCommit {
		return fileio.WrapError(fileio.CodeInternal,
			"the file store failed while committing; the change may or may not have been saved, so check its result before retrying", "", err)
	}
	return fileio.WrapError(fileio.CodeInternal,
		"the file store is unavailable or failed and nothing was changed; retry later", "", err)
}
