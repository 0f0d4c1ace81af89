package pgindex

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// sqlClaimUncoded locks a batch of vector rows without codes (written before schema version 7,
// or by a process of that age; see vcodes.go) that no other transaction holds, by the partial
// index of such rows.
const sqlClaimUncoded = `SELECT project_id, file_path, dims, vectors FROM mcp_search_vectors
WHERE codes IS NULL LIMIT $1 FOR UPDATE SKIP LOCKED`

const sqlSetCodes = `UPDATE mcp_search_vectors v SET codes = c.codes
FROM unnest($1::bigint[], $2::text[], $3::bytea[]) AS c(pid, path, codes)
WHERE v.project_id = c.pid AND v.file_path = c.path`

// backfillBatch is how many files' vectors one backfill transaction encodes.
const backfillBatch = 32

// BackfillCodes computes the int8 codes of every stored file whose vectors have none yet (rows
// written before schema version 7) and stores them, a batch of files per transaction, and
// returns how many files it coded. Until a file has codes, queries read its floats, so the
// answers do not change; only their speed does. New runs it in the background (Close stops it;
// the next start resumes), so a server never needs to call it; operators and tests may. Any
// number of processes may run it at once: each takes rows the others do not hold.
func (ix *Index) BackfillCodes(ctx context.Context) (int64, error) {
	var coded int64
	for {
		n, err := ix.backfillBatch(ctx)
		coded += int64(n)
		if err != nil {
			return coded, backendError(ctx, "storing the codes of vectors", err)
		}
		if n == 0 {
			return coded, nil
		}
	}
}

// backfillBatch codes one batch, returning how many files it coded (0: none left that no
// other transaction holds).
func (ix *Index) backfillBatch(ctx context.Context) (int, error) {
	n := 0
	err := pgx.BeginFunc(ctx, ix.pool, func(tx pgx.Tx) error {
		// The lock every writer of vectors takes first (see sqlLockVectors), so that this
		// transaction's row locks never come before it.
		if _, err := tx.Exec(ctx, sqlLockVectors); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, sqlClaimUncoded, backfillBatch)
		if err != nil {
			return err
		}
		var pids []int64
		var paths []string
		var codes [][]byte
		var pid int64
		var path string
		var dims int32
		var raw []byte
		_, err = pgx.ForEachRow(rows, []any{&pid, &path, &dims, &raw}, func() error {
			c := []byte{}
			if dims > 0 && len(raw)%(4*int(dims)) == 0 {
				c = encodeCodes(raw, int(dims))
			}
			pids, paths, codes = append(pids, pid), append(paths, path), append(codes, c)
			return nil
		})
		if err != nil || len(paths) == 0 {
			return err
		}
		n = len(paths)
		_, err = tx.Exec(ctx, sqlSetCodes, pids, paths, codes)
		return err
	})
	return n, err
}

// backfillInBackground runs BackfillCodes until it is done or ctx ends, then closes done.
func (ix *Index) backfillInBackground(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	start := time.Now()
	n, err := ix.BackfillCodes(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		ix.log.Warn("pgindex could not store the codes of vectors written before schema version 7; queries read their floats until the next start", "files_coded", n, "err", err)
	case n > 0:
		ix.log.Info("pgindex stored the codes of vectors written before schema version 7", "files", n, "took", time.Since(start).Round(time.Millisecond))
	}
}
