package search

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles/search/indexdriver"

	"github.com/google/go-cmp/cmp"
)

// checkChunks verifies the Split invariants for any input.
func checkChunks(t *testing.T, c Chunker, text string) []indexdriver.Chunk {
	t.Helper()
	chunks := c.Split(text)
	if text == "" {
		if len(chunks) != 0 {
			t.Fatalf("empty text gave %d chunks", len(chunks))
		}
		return chunks
	}
	cfg := c.Options()
	var covered int64
	for i, ch := range chunks {
		if ch.Index != i || ch.StartByte < 0 || ch.EndByte > int64(len(text)) || ch.StartByte >= ch.EndByte {
			t.Fatalf("chunk %d has bad offsets [%d,%d) in %d bytes", i, ch.StartByte, ch.EndByte, len(text))
		}
		if ch.Text != text[ch.StartByte:ch.EndByte] {
			t.Fatalf("chunk %d text differs from content[%d:%d]", i, ch.StartByte, ch.EndByte)
		}
		if utf8.ValidString(text) && !utf8.ValidString(ch.Text) {
			t.Fatalf("chunk %d [%d,%d) splits a UTF-8 character", i, ch.StartByte, ch.EndByte)
		}
		if len(ch.Text) > cfg.TargetBytes {
			t.Fatalf("chunk %d is %d bytes, over the target %d", i, len(ch.Text), cfg.TargetBytes)
		}
		if ch.StartByte > covered {
			t.Fatalf("gap before chunk %d: covered up to %d, chunk starts at %d", i, covered, ch.StartByte)
		}
		if i > 0 && ch.StartByte <= chunks[i-1].StartByte {
			t.Fatalf("chunk %d does not advance", i)
		}
		if i > 0 && chunks[i-1].EndByte-ch.StartByte > int64(cfg.OverlapBytes) {
			t.Fatalf("chunks %d and %d overlap by %d bytes, more than %d", i-1, i, chunks[i-1].EndByte-ch.StartByte, cfg.OverlapBytes)
		}
		covered = max(covered, ch.EndByte)
	}
	if covered != int64(len(text)) {
		t.Fatalf("chunks cover %d of %d bytes", covered, len(text))
	}
	return chunks
}

func TestChunkerBoundaries(t *testing.T) {
	c := NewChunker(ChunkerOptions{TargetBytes: 40, OverlapBytes: -1})
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"short text is one chunk", "hello world", []string{"hello world"}},
		{"blank line preferred", "first paragraph is here.\n\nsecond paragraph follows it closely",
			[]string{"first paragraph is here.\n\n", "second paragraph follows it closely"}},
		{"line end next", "one line of text here and\nanother line that goes on and on",
			[]string{"one line of text here and\n", "another line that goes on and on"}},
		{"sentence end next", "This is one sentence. And this is another one that runs long",
			[]string{"This is one sentence. ", "And this is another one that runs long"}},
		{"space last", "words without any punctuation at all keep going on",
			[]string{"words without any punctuation at all ", "keep going on"}},
		{"hard cut on a rune boundary", strings.Repeat("é", 30),
			[]string{strings.Repeat("é", 20), strings.Repeat("é", 10)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, ch := range checkChunks(t, c, tc.text) {
				got = append(got, ch.Text)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("chunks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestChunkerOverlapStartsOnWord(t *testing.T) {
	c := NewChunker(ChunkerOptions{TargetBytes: 64, OverlapBytes: 20})
	text := strings.Repeat("alpha beta gamma delta epsilon zeta eta theta. ", 10)
	chunks := checkChunks(t, c, text)
	for _, ch := range chunks[1:] {
		if prev := text[ch.StartByte-1]; prev != ' ' && prev != '\n' {
			t.Errorf("chunk at %d starts inside a word (after %q)", ch.StartByte, prev)
		}
	}
	if chunks[0].EndByte <= chunks[1].StartByte {
		t.Error("consecutive chunks do not overlap")
	}
}

func TestChunkerDefaults(t *testing.T) {
	tests := []struct {
		in   ChunkerOptions
		want ChunkerOptions
	}{
		{ChunkerOptions{}, ChunkerOptions{TargetBytes: 1200, OverlapBytes: 150}},
		{ChunkerOptions{TargetBytes: 3}, ChunkerOptions{TargetBytes: 16, OverlapBytes: 7}},
		{ChunkerOptions{TargetBytes: 100, OverlapBytes: -1}, ChunkerOptions{TargetBytes: 100, OverlapBytes: 0}},
		{ChunkerOptions{TargetBytes: 100, OverlapBytes: 90}, ChunkerOptions{TargetBytes: 100, OverlapBytes: 49}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, NewChunker(tc.in).Options()); diff != "" {
			t.Errorf("NewChunker(%+v) (-want +got):\n%s", tc.in, diff)
		}
	}
	if diff := cmp.Diff(ChunkerOptions{TargetBytes: 1200, OverlapBytes: 150}, Chunker{}.Options()); diff != "" {
		t.Errorf("zero Chunker: %s", diff)
	}
}

func FuzzChunker(f *testing.F) {
	for _, s := range []string{"", "a", "é", "日本語のテキスト。次の文。", "a\n\nb\n\nc", strings.Repeat("x", 100),
		"emoji 🎉🎉🎉 and combining e\u0301 marks", "trailing spaces     ", "\n\n\n\n", "Sentence one. Sentence two! Three?"} {
		f.Add(s, 16, 4)
	}
	f.Add(strings.Repeat("🎉", 40), 17, 8)
	f.Fuzz(func(t *testing.T, text string, target, overlap int) {
		if !utf8.ValidString(text) || target > 1<<16 || len(text) > 1<<16 {
			return
		}
		checkChunks(t, NewChunker(ChunkerOptions{TargetBytes: target, OverlapBytes: overlap}), text)
	})
}
