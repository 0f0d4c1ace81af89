package pgindex

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPickSegments: the merge policy's choice of segments, by live and stored chunks.
func TestPickSegments(t *testing.T) {
	seg := func(id, chunks, live int64) *segmentInfo { return &segmentInfo{id: id, chunks: chunks, live: live} }
	tests := []struct {
		name        string
		segs        []*segmentInfo
		withPending bool
		pending     int64
		want        []int64
	}{
		{"nothing pending, nothing dead", []*segmentInfo{seg(1, 2048, 2048), seg(2, 4096, 4096)}, false, 0, nil},
		{"pending picks segments up to twice what is gathered, smallest first",
			[]*segmentInfo{seg(3, 100_000, 100_000), seg(2, 4096, 4096), seg(1, 2048, 2048)}, true, 2048, []int64{1, 2}},
		{"a segment much larger than the pending chunks stays", []*segmentInfo{seg(1, 50_000, 50_000)}, true, 2048, nil},
		{"more than 30% dead is rewritten without pending", []*segmentInfo{seg(1, 1000, 690), seg(2, 1000, 710)}, false, 0, []int64{1, 2}},
		{"a dead segment then gathers the small ones", []*segmentInfo{seg(1, 10_000, 1000), seg(2, 1500, 1500), seg(3, 9000, 9000)}, false, 0, []int64{1, 2}},
		{"the output stays within maxSegmentChunks", []*segmentInfo{seg(1, 300_000, 300_000)}, true, 300_000, nil},
	}
	for _, tc := range tests {
		var got []int64
		for _, s := range pickSegments(tc.segs, tc.withPending, tc.pending) {
			got = append(got, s.id)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
