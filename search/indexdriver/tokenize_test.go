package indexdriver

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"The Indexing of indexed INDEXES", []string{"index", "index", "index"}},
		{"retries, retrying: retried!", []string{"retri", "retri", "retri"}},
		{"the and of to", nil},
		{"HTTP/2 over TLS1.3", []string{"http", "2", "tls1", "3"}},
		{"Café naïve résumé", []string{"café", "naïve", "résumé"}},
		{"検索エンジン", []string{"検", "索", "エ", "ン", "ジ", "ン"}},
		{"ПРИВЕТ мир", []string{"привет", "мир"}},
		{"snake_case and kebab-case", []string{"snake", "case", "kebab", "case"}},
		{"", nil},
		// Apostrophes between letters join a word; Snowball's contractions are stop words.
		{"I'm sure we'll see, don't worry", []string{"sure", "see", "worri"}},
		{"I\u2019m sure we\u2019ll see, don\u2019t worry", []string{"sure", "see", "worri"}},
		{"It's Let's THEY'RE can't cannot", nil},
		{"O'Brien rock'n'roll", []string{"o'brien", "rock'n'rol"}},
		// Possessive 's goes; a plural possessive's apostrophe separates.
		{"John's car, the users' files", []string{"john", "car", "user", "file"}},
		{"the server\u2019s logs", []string{"server", "log"}},
		// Apostrophes not between two letters separate.
		{"'quoted' 90's rock' n", []string{"quot", "90", "s", "rock", "n"}},
		{"x'検", []string{"x", "検"}},
		// Single letters with dots are one term.
		{"e.g. this, i.e. that", []string{"eg", "ie"}},
		{"made in the U.S.A. today", []string{"made", "usa", "today"}},
		{"U.S. policy", []string{"us", "polici"}},
		{"e.g.", []string{"eg"}},
		// Not abbreviations: a dotted chain that runs into a word, single letter, or longer words.
		{"a.b.c obj.x e.g.x", []string{"b", "c", "obj", "x", "e", "g", "x"}},
		{"v1.2.3 Mr. J. Smith", []string{"v1", "2", "3", "mr", "j", "smith"}},
		{"www.example.com", []string{"www", "exampl", "com"}},
		// Words the old list dropped and Snowball's keeps; words Snowball's drops.
		{"will can just now", []string{"will", "can", "just", "now"}},
		{"would could ought", nil},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, Tokenize(tc.in)); diff != "" {
			t.Errorf("Tokenize(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestQueryTermsDistinctInOrder(t *testing.T) {
	if diff := cmp.Diff([]string{"backoff", "retri"}, QueryTerms("backoff retries backoff retry")); diff != "" {
		t.Error(diff)
	}
	counts, n := TermCounts("retry retries backoff")
	if diff := cmp.Diff(map[string]int{"retri": 2, "backoff": 1}, counts); diff != "" || n != 3 {
		t.Errorf("TermCounts: n=%d %s", n, diff)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", "The quick brown fox", "日本語", "İstanbul ǅemal ß", strings.Repeat("a", 200),
		"e\u0301\u0301", "\xff\xfe", "123abc ABC123", "🎉 emoji", "I'm sure we\u2019ll", "e.g. U.S.A. a.b.c", "O'Brien's 'x' y'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		terms := Tokenize(s)
		counts, n := TermCounts(s)
		if n != len(terms) {
			t.Fatalf("TermCounts length %d, Tokenize %d terms", n, len(terms))
		}
		for _, term := range terms {
			if term == "" || counts[term] == 0 {
				t.Fatalf("empty or uncounted term %q", term)
			}
			if utf8.ValidString(s) && !utf8.ValidString(term) {
				t.Fatalf("invalid UTF-8 term %q from valid input", term)
			}
			if len(term) > 4*maxTokenBytes {
				t.Fatalf("term of %d bytes", len(term))
			}
		}
		if !utf8.ValidString(s) {
			return
		}
		// Analysis is stable: tokenizing the joined terms of lower-case ASCII input changes nothing.
		again := Tokenize(strings.Join(terms, " "))
		if isASCIIWord(strings.ReplaceAll(strings.Join(terms, ""), " ", "")) && len(again) > len(terms) {
			t.Fatalf("re-tokenizing grew %v to %v", terms, again)
		}
	})
}
