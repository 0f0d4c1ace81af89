package memstore

import (
	"context"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// memstore implements the optional write interfaces too, so that fileio/storetest runs the
// Service over all of its paths on every plain go test, without PostgreSQL.
var (
	_ driver.WriteChecker      = (*writeTx)(nil)
	_ driver.ConditionalWriter = (*writeTx)(nil)
)

// CheckWrite implements driver.WriteChecker from the committed state and the overlay.
func (tx *writeTx) CheckWrite(ctx context.Context, path string, wantContent bool) (driver.WriteCheck, error) {
	if err := ctx.Err(); err != nil {
		return driver.WriteCheck{}, err
	}
	var check driver.WriteCheck
	for i := 1; i < len(path); i++ {
		if path[i] == '/' && tx.lookup(path[:i]) != nil {
			check.AncestorFile = path[:i]
			break
		}
	}
	below, err := tx.List(ctx, path+"/", 1)
	if err != nil {
		return driver.WriteCheck{}, err
	}
	check.HasDescendant = len(below) > 0
	if rec := tx.lookup(path); rec != nil {
		f := &driver.File{FileInfo: rec.info}
		if wantContent {
			f.Content = append([]byte{}, rec.content...)
		}
		check.Existing = f
	}
	check.ProjectBytes, err = tx.ProjectBytes(ctx)
	return check, err
}

// WriteIfAllowed implements driver.ConditionalWriter. An append copies the old content and
// the data once, instead of the three copies (Get, the Service's concatenation, Put) the
// other paths make.
func (tx *writeTx) WriteIfAllowed(ctx context.Context, w driver.ConditionalWrite, opts driver.PutOptions) (driver.ConditionalResult, error) {
	check, err := tx.CheckWrite(ctx, w.Path, false)
	if err != nil || !w.Allows(check) {
		return driver.ConditionalResult{Check: check}, err
	}
	var old []byte
	if rec := tx.lookup(w.Path); rec != nil && w.Append {
		old = rec.content
	}
	content := append(append(make([]byte, 0, len(old)+len(w.Data)), old...), w.Data...)
	info := tx.store(w.Path, content, opts)
	return driver.ConditionalResult{Check: check, Written: true, Info: info, SHA256: fileio.SHA256Hex(content)}, nil
}

var _ driver.Splicer = (*writeTx)(nil)

// Locate implements driver.Splicer from the content in memory. Its search is linear
// (bytes.Index), so it always searches, whatever maxScan.
func (tx *writeTx) Locate(ctx context.Context, path string, needle []byte, radius, maxScan int64, wantSHA256 bool) (driver.Located, error) {
	if err := ctx.Err(); err != nil {
		return driver.Located{}, err
	}
	rec := tx.lookup(path)
	if rec == nil {
		return driver.Located{}, nil
	}
	loc := driver.LocateIn(rec.info, rec.content, needle, radius, wantSHA256)
	loc.Window = append([]byte(nil), loc.Window...)
	return loc, nil
}

// Splice implements driver.Splicer.
func (tx *writeTx) Splice(ctx context.Context, path string, offset, length int64, data []byte, dryRun bool, opts driver.PutOptions) (driver.FileInfo, string, error) {
	if err := ctx.Err(); err != nil {
		return driver.FileInfo{}, "", err
	}
	rec := tx.lookup(path)
	if rec == nil || offset < 0 || length < 0 || offset+length > int64(len(rec.content)) {
		return driver.FileInfo{}, "", agentfiles.NewError(agentfiles.CodeNotFound, "no file at this path, or the range is outside it", path)
	}
	content := make([]byte, 0, int64(len(rec.content))-length+int64(len(data)))
	content = append(append(append(content, rec.content[:offset]...), data...), rec.content[offset+length:]...)
	sum := fileio.SHA256Hex(content)
	if dryRun {
		return driver.FileInfo{Path: path, SizeBytes: int64(len(content)), CreatedAt: rec.info.CreatedAt}, sum, nil
	}
	return tx.store(path, content, opts), sum, nil
}
