package indextest

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/google/go-cmp/cmp"
)

// fileStatePaths sit on both sides of every prefix testFileStatesPrefix asks for: a path equal
// to the prefix, longer ones, and the nearest paths before and after it in byte order,
// including characters of every UTF-8 length, the last one before the surrogates (U+D7FF) and
// the last code point (U+10FFFF), where the next string after a prefix is hardest to find.
var fileStatePaths = []string{
	"/a", "/a.txt", "/a/b", "/ab", "/a\x7f", "/b", "/`",
	"/é", "/é/x", "/éa", "/ê",
	"/\ud7ff", "/\ud7ffz", "/\ue000",
	"/\U0010FFFF", "/\U0010FFFFx", "/\U0010FFFF\U0010FFFF", "/\U0010FFFE",
	"/検索/x", "/検索", "/検紅",
}

// testFileStatesPrefix: FileStates returns exactly the indexed files whose path has the string
// prefix, with their versions, for every prefix — the Indexer asks for one file per job, the
// Syncer for a directory, and an index may answer either with a range scan.
func testFileStatesPrefix(t *testing.T, idx indexdriver.Index) {
	ctx := context.Background()
	scope := Scope(keyA, "p")
	version := time.Date(2026, 1, 2, 3, 4, 5, 6789, time.UTC)
	want := make(map[string]indexdriver.FileState)
	for i, p := range fileStatePaths {
		f := indexdriver.IndexedFile{Path: p, FileUpdatedAt: version.Add(time.Duration(i)), Tokenizer: indexdriver.TokenizerName}
		f.Chunks = []indexdriver.IndexedChunk{{Chunk: indexdriver.Chunk{Index: 0, StartByte: 0, EndByte: 5}, Terms: map[string]int{"alpha": 1}, ChunkTerms: 1}}
		if err := idx.ReplaceFile(ctx, scope, f); err != nil {
			t.Fatalf("ReplaceFile %q: %v", p, err)
		}
		want[p] = indexdriver.FileState{FileUpdatedAt: f.FileUpdatedAt, Tokenizer: indexdriver.TokenizerName, Chunks: 1}
	}
	// Another project's files never show.
	other := indexdriver.IndexedFile{Path: "/a/other", FileUpdatedAt: version, Tokenizer: indexdriver.TokenizerName}
	if err := idx.ReplaceFile(ctx, Scope(keyA, "q"), other); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		prefix string
		paths  []string
	}{
		{"", fileStatePaths},
		{"/a", []string{"/a", "/a.txt", "/a/b", "/ab", "/a\x7f"}},
		{"/a/", []string{"/a/b"}},
		{"/a/b", []string{"/a/b"}},
		{"/a\x7f", []string{"/a\x7f"}},
		{"/é", []string{"/é", "/é/x", "/éa"}},
		{"/\ud7ff", []string{"/\ud7ff", "/\ud7ffz"}},
		{"/\U0010FFFF", []string{"/\U0010FFFF", "/\U0010FFFFx", "/\U0010FFFF\U0010FFFF"}},
		{"/\U0010FFFF\U0010FFFF", []string{"/\U0010FFFF\U0010FFFF"}},
		{"/検索", []string{"/検索/x", "/検索"}},
		{"/zz", nil},
		{"/a\xff", nil}, // not UTF-8: no path has it
	}
	for _, tc := range tests {
		got, err := idx.FileStates(ctx, scope, tc.prefix)
		if err != nil {
			t.Fatalf("FileStates(%q): %v", tc.prefix, err)
		}
		wantStates := make(map[string]indexdriver.FileState)
		for _, p := range tc.paths {
			wantStates[p] = want[p]
		}
		if diff := cmp.Diff(wantStates, got); diff != "" {
			t.Errorf("FileStates(%q) got %q (-want +got):\n%s", tc.prefix, slices.Sorted(maps.Keys(got)), diff)
		}
	}
}
