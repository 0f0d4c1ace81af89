package pgstore

import (
	"context"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
)

var _ driver.RangeReader = (*readTx)(nil)

// sqlReadRanges returns, per requested range (its ordinal), the file's info and the range's
// bytes when the file is at the requested version and the range lies within it. substring on
// BYTEA counts bytes, so only the ranges travel, not the files. The lookup is a LATERAL
// subquery with a LIMIT, an index probe per path however stale the table's statistics are
// (see sqlChangedSince).
const sqlReadRanges = `SELECT r.ord, f.path, f.size, f.created_at, f.updated_at,
       CASE WHEN f.updated_at = r.v AND r.s >= 0 AND r.s <= r.e AND r.e <= octet_length(f.content)
            THEN substring(f.content FROM (r.s + 1)::int FOR (r.e - r.s)::int) END
FROM unnest($3::text[], $4::timestamptz[], $5::bigint[], $6::bigint[]) WITH ORDINALITY AS r(path, v, s, e, ord)
CROSS JOIN LATERAL (
    SELECT path, size, created_at, updated_at, content FROM mcp_files
    WHERE apikey_hash = $1 AND project = $2 AND path = r.path AND deleted = FALSE
    LIMIT 1
) AS f`

// ReadRanges implements driver.RangeReader with one statement.
func (tx *readTx) ReadRanges(ctx context.Context, ranges []driver.ByteRange) (map[string]driver.FileInfo, [][]byte, error) {
	infos := make(map[string]driver.FileInfo, len(ranges))
	out := make([][]byte, len(ranges))
	if len(ranges) == 0 {
		return infos, out, ctx.Err()
	}
	n := len(ranges)
	paths, vers := make([]string, n), make([]time.Time, n)
	starts, ends := make([]int64, n), make([]int64, n)
	for i, r := range ranges {
		paths[i], vers[i], starts[i], ends[i] = r.Path, r.Version, r.Start, r.End
	}
	err := tx.x.query(ctx, opRead, sqlReadRanges, []any{tx.x.scope.Tenant, tx.x.scope.Project, paths, vers, starts, ends}, func(r pgx.Rows) error {
		var ord int64
		var fi driver.FileInfo
		var b []byte
		if err := r.Scan(&ord, &fi.Path, &fi.SizeBytes, &fi.CreatedAt, &fi.UpdatedAt, &b); err != nil {
			return err
		}
		fi.CreatedAt, fi.UpdatedAt = fi.CreatedAt.UTC(), fi.UpdatedAt.UTC()
		infos[fi.Path] = fi
		if want := ranges[ord-1]; b == nil && fi.UpdatedAt.Equal(want.Version) && want.Start == want.End && want.Start >= 0 && want.Start <= fi.SizeBytes {
			b = []byte{} // an empty range of a current file
		}
		out[ord-1] = b
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return infos, out, nil
}
