package pgstore

import (
	"context"
	"log/slog"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

// purgeBatch bounds the rows one purge statement deletes, keeping each transaction short.
const purgeBatch = 1000

const sqlPurge = `DELETE FROM mcp_files WHERE id IN (
    SELECT id FROM mcp_files
    WHERE deleted = TRUE AND purge_after <= statement_timestamp()
    LIMIT $1)`

// Purge permanently removes the rows of deleted files whose retention has run out (each was
// deleted with the driver.UpdateOptions.DeleteRetention of its Update; a Service passes
// settings.mcp.files.delete_retention_days) and the kept versions of the file history whose
// retention has run out (driver.UpdateOptions.HistoryRetention of the Update that replaced
// them; settings.mcp.files.history_retention_days), taking their bytes off the project's
// quota, and the events of the change feed past their retention that no checkpoint needs, and
// returns how many rows it removed. It works in
// batches of short transactions and never touches active files, so it can run while the store
// is in use, from any number of instances at once. The background purger (see
// Options.PurgeInterval) calls it. It is safe for concurrent use.
func (s *Store) Purge(ctx context.Context) (int64, error) {
	var total int64
	for {
		tag, err := s.pool.Exec(ctx, sqlPurge, purgeBatch)
		if err != nil {
			return total, s.storeError(ctx, opPurge, driver.Scope{}, err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < purgeBatch {
			break
		}
	}
	for _, sql := range []string{sqlPurgeVersions, sqlPurgeEvents} {
		for {
			var n int64
			if err := s.pool.QueryRow(ctx, sql, purgeBatch).Scan(&n); err != nil {
				return total, s.storeError(ctx, opPurge, driver.Scope{}, err)
			}
			total += n
			if n < purgeBatch {
				break
			}
		}
	}
	return total, nil
}

// startPurger runs Purge now and then every interval until Close.
func (s *Store) startPurger(interval time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	s.stopPurger, s.purgerDone = cancel, make(chan struct{})
	go func() {
		defer close(s.purgerDone)
		ticker := time.NewTicker(interval)
		defer ticker.Stop()
		for {
			n, err := s.Purge(ctx)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				s.logger.LogAttrs(ctx, slog.LevelWarn, "pgstore: purging deleted files failed; will retry",
					slog.String("error", err.Error()))
			} else if n > 0 {
				s.logger.LogAttrs(ctx, slog.LevelInfo, "pgstore: purged deleted files", slog.Int64("rows", n))
			}
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
		}
	}()
}
