package fileio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
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

// FuzzAnswerSizeTwice checks answerSize's count of a string sent twice against the MCP
// binding's encoding: the string's JSON (encoding/json, HTML escaped) as structured content,
// plus that JSON as a string in the text block, encoded without HTML escaping as the SDK
// writes its messages, its own quotes left out; and that prefix keeps a prefix within its budget.
func FuzzAnswerSizeTwice(f *testing.F) {
	for _, s := range []string{"", "plain", "\x01\x1f\"\\\n\t<>&", "é日本\u2028\u2029", "\xff\xfe", strings.Repeat("\x01", 40)} {
		f.Add(s, 40)
	}
	a := answerSizeOf(agentfiles.AnswerJSONAndText)
	f.Fuzz(func(t *testing.T, s string, budget int) {
		structured, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var text bytes.Buffer
		enc := json.NewEncoder(&text)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(string(structured)); err != nil {
			t.Fatal(err)
		}
		// The text block's own quotes belong to the envelope, not to this string.
		sent := len(structured) + len(bytes.TrimSuffix(text.Bytes(), []byte("\n"))) - 2
		if got := a.str(s); got != sent {
			t.Fatalf("str(%q) = %d, sent as %d bytes: %s and %s", s, got, sent, structured, text.Bytes())
		}
		budget = max(budget%400, a.quotes())
		p := a.prefix(s, budget)
		if !strings.HasPrefix(s, p) || a.str(p) > budget {
			t.Fatalf("prefix(%q, %d) = %q (%d bytes)", s, budget, p, a.str(p))
		}
		if utf8.ValidString(s) && !utf8.ValidString(p) {
			t.Fatalf("prefix(%q, %d) = %q cuts a character", s, budget, p)
		}
	})
}

// BenchmarkAnswerSize counts a 4 KiB line of mixed text as one JSON string and as sent twice;
// json.Marshal of the same line is the reference.
func BenchmarkAnswerSize(b *testing.B) {
	line := strings.Repeat("func main() { fmt.Println(\"héllo\\n\") } \x01<>", 4096/48)
	b.Run("json.Marshal", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			_, _ = json.Marshal(line)
		}
	})
	for _, e := range []agentfiles.AnswerEncoding{agentfiles.AnswerJSON, agentfiles.AnswerJSONAndText} {
		a := answerSizeOf(e)
		b.Run(fmt.Sprintf("str/twice=%v", a.twice), func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				a.str(line)
			}
		})
	}
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
