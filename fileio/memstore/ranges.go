package memstore

import (
	"context"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

var _ driver.RangeReader = (*readTx)(nil)

// ReadRanges implements driver.RangeReader: each range is copied out of the stored content,
// never the whole file.
func (tx *readTx) ReadRanges(ctx context.Context, ranges []driver.ByteRange) (map[string]driver.FileInfo, [][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	infos := make(map[string]driver.FileInfo)
	out := make([][]byte, len(ranges))
	for i, r := range ranges {
		rec := tx.lookup(r.Path)
		if rec == nil {
			continue
		}
		infos[r.Path] = rec.info
		if rec.info.UpdatedAt.Equal(r.Version) {
			if b := driver.SliceRange(rec.content, r.Start, r.End); b != nil {
				out[i] = append([]byte{}, b...)
			}
		}
	}
	return infos, out, nil
}
