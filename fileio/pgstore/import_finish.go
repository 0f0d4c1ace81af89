package pgstore

import (
	"context"
	"fmt"
	"log/slog"
)

// analyzeAfterRows is how many files an Update must create with PutMany before it refreshes
// the planner's statistics of mcp_files after its commit. Grep's candidate query chooses
// between the trigram index and a walk of the path index by how many rows of the project it
// expects; statistics from before a large import (of an empty table, or without the project)
// make it expect a handful and walk the path index, testing every file, until autovacuum's
// ANALYZE comes round.
const analyzeAfterRows = 1000

// sqlAnalyzeFiles samples the columns that grep's conditions besides the trigram match test
// (a column list leaves out the index expressions, whose evaluation would read and fold the
// content of every sampled row): about 30,000 rows' heap tuples, a bounded cost whatever the
// table's size. ANALYZE by a role that does not own the table is skipped with a warning.
const sqlAnalyzeFiles = `ANALYZE mcp_files (apikey_hash, project, path, deleted, grep_indexed)`

// sqlCleanPending moves the entries of the GIN indexes of mcp_files (grep's trigram index)
// out of their pending lists (fastupdate) into the index proper, where a search looks them up
// instead of reading the whole list. Indexes the role does not own are left alone:
// gin_clean_pending_list refuses them.
const sqlCleanPending = `SELECT gin_clean_pending_list(c.oid) FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = 'mcp_files'::regclass AND a.amname = 'gin' AND pg_has_role(c.relowner, 'USAGE')`

// bulkWritten records what a PutMany wrote, and makes the Update finish the import's index
// upkeep after its commit (finishImport).
func (x *session) bulkWritten(created int64, indexed bool) {
	x.bulkCreated += created
	x.bulkIndexed = x.bulkIndexed || indexed
	x.afterCommit = x.finishImport
}

// upkeepLockTimeoutMillis bounds how long the upkeep waits for the table lock ANALYZE takes
// (SHARE UPDATE EXCLUSIVE, which a running VACUUM or another ANALYZE of mcp_files holds).
const upkeepLockTimeoutMillis = 1000

// finishImport runs after the commit of an Update that wrote with PutMany, on its connection,
// so that a grep right after the import reads the trigram index at full speed: it empties the
// GIN pending lists when the import indexed its files, and refreshes the statistics of
// mcp_files when it created at least analyzeAfterRows files. Each step is a short transaction
// of its own under the store's statement timeout (or ctx's deadline) and a lock timeout of
// upkeepLockTimeoutMillis. The import has committed either way, so a failure is logged and not
// returned; autovacuum does both later.
func (x *session) finishImport(ctx context.Context) {
	var steps []string
	if x.bulkIndexed {
		steps = append(steps, sqlCleanPending)
	}
	if x.bulkCreated >= analyzeAfterRows {
		steps = append(steps, sqlAnalyzeFiles)
	}
	for _, sql := range steps {
		tx := fmt.Sprintf("BEGIN; SET LOCAL lock_timeout = %d; SET LOCAL statement_timeout = %s; %s; COMMIT",
			upkeepLockTimeoutMillis, x.s.statementTimeoutMillis(ctx), sql)
		if _, err := x.conn.Exec(ctx, tx); err != nil {
			x.rollback()
			x.s.logger.LogAttrs(ctx, slog.LevelWarn, "pgstore: index upkeep after an import failed; autovacuum will do it",
				slog.String("project", x.scope.Project), slog.String("error", err.Error()))
			return
		}
	}
}
