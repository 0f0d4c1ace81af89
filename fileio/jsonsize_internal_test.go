package fileio

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles/internal/asciifold"
)

// FuzzJSONStringLen checks jsonStringLen against encoding/json, and that jsonPrefix keeps a
// prefix at a character boundary within its budget.
func FuzzJSONStringLen(f *testing.F) {
	for _, s := range []string{"", "plain", "\x01\x1f\"\\\n\t<>&", "é日本\u2028\u2029", "\xff\xfe", strings.Repeat("\x01", 40)} {
		f.Add(s, 20)
	}
	f.Fuzz(func(t *testing.T, s string, budget int) {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonStringLen(s); got != len(b) {
			t.Fatalf("jsonStringLen(%q) = %d, encoding/json writes %d bytes: %s", s, got, len(b), b)
		}
		budget = max(budget%200, 2)
		p := jsonPrefix(s, budget)
		if !strings.HasPrefix(s, p) || jsonStringLen(p) > budget {
			t.Fatalf("jsonPrefix(%q, %d) = %q (%d bytes)", s, budget, p, jsonStringLen(p))
		}
		if utf8.ValidString(s) && !utf8.ValidString(p) {
			t.Fatalf("jsonPrefix(%q, %d) = %q cuts a character", s, budget, p)
		}
		if p != s && jsonStringLen(s[:len(p)+1]) <= budget && utf8.ValidString(s[:len(p)+1]) {
			t.Fatalf("jsonPrefix(%q, %d) = %q stops early", s, budget, p)
		}
	})
}

// BenchmarkIndexASCIIFoldHostile runs the ignore-case literal search on a 4,000-byte literal
// over 1 MiB of its first letter, the case that was quadratic; bytes.Index of the same
// literal over the same content is the reference.
func BenchmarkIndexASCIIFoldHostile(b *testing.B) {
	content := bytes.Repeat([]byte("a"), 1<<20)
	lit := strings.Repeat("a", 3999) + "b"
	b.Run("bytes.Index", func(b *testing.B) {
		b.SetBytes(int64(len(content)))
		for b.Loop() {
			bytes.Index(content, []byte(lit))
		}
	})
	b.Run("indexASCIIFold", func(b *testing.B) {
		b.SetBytes(int64(len(content)))
		for b.Loop() {
			asciifold.Index(content, lit)
		}
	})
}
