package pgstore

import (
	"context"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

var _ driver.ContentLister = (*readTx)(nil)

// The ListContent statements are the List statements with the content and a lower bound $3
// (the last path of the previous page): one walk of the active-path index in path order, the
// content detoasted as each row is sent.
const (
	sqlListContentFrom = `SELECT path, content, size, created_at, updated_at FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path > $3 AND path >= $4 AND starts_with(path, $4)
ORDER BY path LIMIT $5`
	sqlListContentRange = `SELECT path, content, size, created_at, updated_at FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path > $3 AND path >= $4 AND path < $6 AND starts_with(path, $4)
ORDER BY path LIMIT $5`
)

// ListContent implements driver.ContentLister with one statement per page. The content is
// not copied: fn sees the bytes pgx received (pgtype.DriverBytes), valid until the next row.
func (tx *readTx) ListContent(ctx context.Context, prefix, after string, limit int, fn func(driver.File) error) error {
	sc := tx.x.scope
	sql, args := sqlListContentFrom, []any{sc.Tenant, sc.Project, after, prefix, int64(max(limit, 1))}
	if end, bounded := prefixEnd(prefix); bounded {
		sql, args = sqlListContentRange, append(args, end)
	}
	var fnErr error // fn's own error, returned as it is (not as a store error)
	err := tx.x.query(ctx, opRead, sql, args, func(r pgx.Rows) error {
		var f driver.File
		var content pgtype.DriverBytes
		if err := r.Scan(&f.Path, &content, &f.SizeBytes, &f.CreatedAt, &f.UpdatedAt); err != nil {
			return err
		}
		f.Content = content
		if f.Content == nil {
			f.Content = []byte{}
		}
		f.CreatedAt, f.UpdatedAt = f.CreatedAt.UTC(), f.UpdatedAt.UTC()
		fnErr = fn(f)
		return fnErr
	})
	if fnErr != nil {
		return fnErr
	}
	return err
}
