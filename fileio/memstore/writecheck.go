package memstore

import (
	"context"

	"github.com/agentfiles/agentfiles/fileio"
)

// memstore implements the optional write interfaces too, so that fileio/storetest runs the
// Service over both of its paths on every plain go test, without PostgreSQL.
var (
	_ fileio.WriteChecker = (*writeTx)(nil)
	_ fileio.Appender     = (*writeTx)(nil)
)

// CheckWrite implements fileio.WriteChecker from the committed state and the overlay.
func (tx *writeTx) CheckWrite(ctx context.Context, path string, wantContent bool) (fileio.WriteCheck, error) {
	if err := ctx.Err(); err != nil {
		return fileio.WriteCheck{}, err
	}
	var check fileio.WriteCheck
	for i := 1; i < len(path); i++ {
		if path[i] == '/' && tx.lookup(path[:i]) != nil {
			check.AncestorFile = path[:i]
			break
		}
	}
	below, err := tx.List(ctx, path+"/", 1)
	if err != nil {
		return fileio.WriteCheck{}, err
	}
	check.HasDescendant = len(below) > 0
	if rec := tx.lookup(path); rec != nil {
		f := &fileio.File{FileInfo: rec.info}
		if wantContent {
			f.Content = append([]byte{}, rec.content...)
		}
		check.Existing = f
	}
	check.ProjectBytes, err = tx.ProjectBytes(ctx)
	return check, err
}

// Append implements fileio.Appender: one copy of the old content and data, instead of the
// three (Get, the caller's concatenation, Put) the portable path makes.
func (tx *writeTx) Append(ctx context.Context, path string, data []byte, opts fileio.PutOptions) (fileio.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return fileio.FileInfo{}, err
	}
	var old []byte
	if rec := tx.lookup(path); rec != nil {
		old = rec.content
	}
	content := make([]byte, 0, len(old)+len(data))
	return tx.store(path, append(append(content, old...), data...), opts), nil
}
