package grepbench

import "testing"

func TestWord(t *testing.T) {
	files := []File{
		{Path: "/1", Content: []byte("common rarely common")},
		{Path: "/2", Content: []byte("common halfway")},
		{Path: "/3", Content: []byte("common halfway short")},
		{Path: "/4", Content: []byte("common")},
	}
	for _, tc := range []struct {
		fraction float64
		want     string
	}{
		{0.25, "rarely"}, // one file in four; "short" is under six letters
		{0.5, "halfway"},
		{1, "common"},
	} {
		if got := Word(files, tc.fraction); got != tc.want {
			t.Errorf("Word(%v) = %q, want %q", tc.fraction, got, tc.want)
		}
	}
}
