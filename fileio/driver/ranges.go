package driver

import (
	"context"
	"time"
)

// ByteRange names bytes [Start, End) of the version Version (UpdatedAt) of the file at Path.
type ByteRange struct {
	Path       string
	Version    time.Time
	Start, End int64
}

// RangeReader is an optional interface of a ReadTx that reads byte ranges of several files in
// one step (pgstore: one statement) without copying the files whole. Package search fills the
// text of its results with it, since its indexes keep chunk offsets rather than chunk text; use
// the ReadRanges function, which falls back to StatMany and Get.
type RangeReader interface {
	// ReadRanges returns the info of the active files among the ranges' paths, keyed by path, as
	// StatMany would, and one entry per range, in order: the file's bytes [Start, End) when
	// the active file at Path has UpdatedAt equal to Version and 0 <= Start <= End <= its size,
	// nil otherwise (an empty range of a current file is an empty, non-nil slice).
	ReadRanges(ctx context.Context, ranges []ByteRange) (map[string]FileInfo, [][]byte, error)
}

// ReadRanges reads ranges as RangeReader.ReadRanges does: in one call when tx implements
// RangeReader, else with StatMany and one Get per file that some range reads at its current
// version.
func ReadRanges(ctx context.Context, tx ReadTx, ranges []ByteRange) (map[string]FileInfo, [][]byte, error) {
	if r, ok := tx.(RangeReader); ok {
		return r.ReadRanges(ctx, ranges)
	}
	paths := make([]string, len(ranges))
	for i, r := range ranges {
		paths[i] = r.Path
	}
	infos, err := StatMany(ctx, tx, paths)
	if err != nil {
		return nil, nil, err
	}
	out := make([][]byte, len(ranges))
	contents := make(map[string][]byte)
	for i, r := range ranges {
		info, ok := infos[r.Path]
		if !ok || !info.UpdatedAt.Equal(r.Version) {
			continue
		}
		content, read := contents[r.Path]
		if !read {
			f, err := tx.Get(ctx, r.Path)
			if err != nil {
				return nil, nil, err
			}
			content = f.Content
			contents[r.Path] = content
		}
		out[i] = SliceRange(content, r.Start, r.End)
	}
	return infos, out, nil
}

// SliceRange returns content[start:end] (never nil), or nil when the range is not within
// content. Stores use it to implement RangeReader.
func SliceRange(content []byte, start, end int64) []byte {
	if start < 0 || start > end || end > int64(len(content)) {
		return nil
	}
	if start == end {
		return []byte{}
	}
	return content[start:end:end]
}
