package fileid

import (
	"math/rand/v2"
	"regexp/syntax"
	"testing"
)

func TestRunFilter(t *testing.T) {
	for _, tt := range []struct {
		query    string
		fold     bool
		minBytes int    // 0: no filter
		in, out  string // bytes that must and must not be in the set
	}{
		{query: "[a-z]{12,}", minBytes: 12, in: "az", out: "AZ09 -\n\x80"},
		{query: `\d{4}-\d{2}`, minBytes: 7, in: "09-", out: "a \n"},
		{query: `\b[[:alpha:]]{9}\b`, minBytes: 9, in: "aZ", out: "0_ "},
		{query: "(?:[a-z]{3}|[0-9]{5})[A-Z]", minBytes: 4, in: "a0Z", out: " -"},
		{query: "[k-m]{2}", fold: true, minBytes: 2, in: "kKmM\x80\xe2", out: "jn"}, // K folds to U+212A
		{query: `[\x{FFFD}a-c]{3}`, minBytes: 3, in: "abc\xff\xef", out: "d"},       // invalid UTF-8 reads as U+FFFD
		{query: "é{2}", minBytes: 2, in: "\xc3\xa9", out: "e"},                      // 2 runes, at least 2 bytes
		{query: "[a-z]+x*[0-9]?", minBytes: 1, in: "ax0", out: "A "},                // optional parts still add bytes
		{query: ".{60,}", minBytes: 60, in: "a \x00\xff", out: "\n"},                // line length alone
		{query: "(?s).{3}", minBytes: 3, in: "a", out: "\n"},                        // lines never hold '\n'
		{query: "x*"}, {query: "^$"}, {query: `a?\b`}, {query: "."}, {query: "(?s)."}, // empty match, or no byte ruled out
	} {
		flags := "(?m)"
		if tt.fold {
			flags = "(?mi)"
		}
		re, err := syntax.Parse(flags+tt.query, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		f := newRunFilter(re)
		if tt.minBytes == 0 {
			if f != nil {
				t.Errorf("%q: filter with minBytes %d, want none", tt.query, f.minBytes)
			}
			continue
		}
		if f == nil {
			t.Errorf("%q: no filter, want minBytes %d", tt.query, tt.minBytes)
			continue
		}
		if f.minBytes != tt.minBytes {
			t.Errorf("%q: minBytes %d, want %d", tt.query, f.minBytes, tt.minBytes)
		}
		for _, b := range []byte(tt.in) {
			if !f.set[b] {
				t.Errorf("%q: byte %q not in the set", tt.query, b)
			}
		}
		for _, b := range []byte(tt.out) {
			if f.set[b] {
				t.Errorf("%q: byte %q in the set", tt.query, b)
			}
		}
	}
}

// TestRunFilterNext checks the skipping scan against the obvious one on random bytes.
func TestRunFilterNext(t *testing.T) {
	naive := func(f *runFilter, b []byte, from int) int {
		run := 0
		for i := from; i < len(b); i++ {
			if !f.set[b[i]] {
				run = 0
				continue
			}
			if run++; run == f.minBytes {
				return i - run + 1
			}
		}
		return -1
	}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("ab \n")
	for range 2000 {
		f := &runFilter{minBytes: 1 + rng.IntN(6)}
		f.set['a'], f.set['b'] = true, rng.IntN(2) == 0
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		for from := 0; from <= len(b); from++ {
			if got, want := f.next(b, from), naive(f, b, from); got != want {
				t.Fatalf("next(%q, %d) with minBytes %d = %d, want %d", b, from, f.minBytes, got, want)
			}
		}
	}
}

// TestSearchRunFilterPath: the queries that should take the byte-run path do, and agree with
// the line-by-line reference on lines built to sit at the edges of the filter.
func TestSearchRunFilterPath(t *testing.T) {
	body := "# Runs\n" +
		"short words only here\n" +
		"exactly twelve: abcdefghijkl\n" +
		"eleven: abcdefghijk\n" +
		"split\nacross lines abcdef\nghijkl\n" +
		"digits 2024-05 and 202-05\n" +
		"bad \xff\xfe\xfd utf8 abc\xffdef\n" +
		"kelvin \u212a\u212a and KK and kk\n" +
		"accents éé ü\n" +
		"tail without newline abcdefghijklmnop"
	checkPath(t, body, "byte-run", func(m *matcher) bool { return m.runs != nil }, []searchQuery{
		{"[a-z]{12,}", false}, {"[a-z]{11}", false}, {`[0-9a-z]{4}[-/]\d{2}`, false}, {"[k-m]{2}", true}, {"[A-Z]{2}", false},
		{`[\x{FFFD}a-f]{4}`, false}, {`[^\x00-\x7f]{2}`, false}, {"[é-ü]{2}", false}, {"[a-z]{6}$", false},
		{`\b[a-z]{5}\b`, false}, {"(?:[a-z]{3}|[0-9]{4})[-:]", false},
	})
}
