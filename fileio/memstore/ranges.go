package memstore

import (
	"context"

	"github.com/agentfiles/agentfiles/fileio"
)

var _ fileio.RangeReader = (*readTx)(nil)

// ReadRanges implements fileio.RangeReader: each range is copied out of the stored content,
// never the whole file.
func (tx *readTx) ReadRanges(ctx context.Context, ranges []fileio.ByteRange) (map[string]fileio.FileInfo, [][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	infos := make(map[string]fileio.FileInfo)
	out := make([][]byte, len(ranges))
	for i, r := range ranges {
		rec := tx.lookup(r.Path)
		if rec == nil {
			continue
		}
		infos[r.Path] = rec.info
		if rec.info.UpdatedAt.Equal(r.Version) {
			if b := fileio.SliceRange(rec.content, r.Start, r.End); b != nil {
				out[i] = append([]byte{}, b...)
			}
		}
	}
	return infos, out, nil
}
