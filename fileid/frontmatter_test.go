package fileid

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentfiles/agentfiles/internal/testsize"
	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// fmAnswer is what front-matter parsing yields for one block: the fields and whether an
// error is reported (and logged).
type fmAnswer struct {
	FM  frontMatter
	Err bool
}

// yamlFrontMatter is the reference: yaml.v3 decoding the block into frontMatter, the zero
// value when it reports an error.
// yaml.v3 panics on a few malformed blocks; that counts as an error.
func yamlFrontMatter(y []byte) (answer fmAnswer) {
	defer func() {
		if recover() != nil {
			answer = fmAnswer{Err: true}
		}
	}()
	var fm frontMatter
	if err := yaml.Unmarshal(y, &fm); err != nil {
		return fmAnswer{Err: true}
	}
	return fmAnswer{FM: fm}
}

// referenceFrontMatter is the registry's answer without the fast path: blank blocks are
// empty, lenientFrontMatter answers for the flat blocks it reads, and yaml.v3 for the rest.
func referenceFrontMatter(y []byte) fmAnswer {
	if len(bytes.TrimSpace(y)) == 0 {
		return fmAnswer{}
	}
	if fm, ok := lenientFrontMatter(y); ok {
		return fmAnswer{FM: fm}
	}
	return yamlFrontMatter(y)
}

func parsedFrontMatter(y []byte) fmAnswer {
	fm, err := parseFrontMatter(y)
	return fmAnswer{FM: fm, Err: err != nil}
}

// checkFastFrontMatter fails when the fast path answers differently from yaml.v3, or when
// parseFrontMatter answers differently from the reference.
func checkFastFrontMatter(t *testing.T, y []byte) (decided bool) {
	t.Helper()
	if fm, ok := fastFrontMatter(y); ok {
		if diff := cmp.Diff(yamlFrontMatter(y), fmAnswer{FM: fm}); diff != "" {
			t.Fatalf("%q: fast path differs from yaml.v3 (-yaml.v3 +fast):\n%s", y, diff)
		}
		decided = true
	}
	if diff := cmp.Diff(referenceFrontMatter(y), parsedFrontMatter(y)); diff != "" {
		t.Fatalf("%q: parseFrontMatter differs from the reference (-reference +got):\n%s", y, diff)
	}
	return decided
}

func TestFastFrontMatter(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       frontMatter
	}{
		{"cmdlet reference", "external help file: Microsoft.PowerShell.Commands.Utility.dll-Help.xml\nLocale: en-US\n" +
			"Module Name: Microsoft.PowerShell.Utility\nms.date: 12/12/2022\n" +
			"online version: https://learn.microsoft.com/powershell/module/add-member?view=powershell-7.4&WT.mc_id=ps-gethelp\n" +
			"schema: 2.0.0\ntitle: Add-Member\n", frontMatter{Title: "Add-Member"}},
		{"article", "title: \"Quickstart: Create a widget\"\ndescription: Learn how to create a widget, step by step.\n" +
			"author: jdoe\nms.author: jdoe\nms.topic: quickstart\nms.date: 03/14/2024\nms.custom: mode-api, devx-track-cli\n",
			frontMatter{Title: "Quickstart: Create a widget", Description: "Learn how to create a widget, step by step."}},
		{"single quotes", "title: 'Widget''s guide'\ndescription: ''\n", frontMatter{Title: "Widget's guide"}},
		{"escapes", `title: "a \"b\" \\ \u00e9\n"` + "\n", frontMatter{Title: "a \"b\" \\ é\n"}},
		{"number title", "title: 2.0\ndescription: 12\n", frontMatter{Title: "2.0", Description: "12"}},
		{"date and bool", "title: 2024-01-01\ndescription: true\n", frontMatter{Title: "2024-01-01", Description: "true"}},
		{"null forms", "title: ~\ndescription: null\n", frontMatter{}},
		{"empty value", "title:\ndescription: # none\nx: 1\n", frontMatter{}},
		{"quoted null", "title: 'null'\ndescription: \"~\"\n", frontMatter{Title: "null", Description: "~"}},
		{"comments", "# generated\ntitle: Guide # shown in the TOC\n  # indented comment\ndescription: a#b\n",
			frontMatter{Title: "Guide", Description: "a#b"}},
		{"folded plain", "description: first line\n  second line\n\n  new paragraph\ntitle: T\n",
			frontMatter{Title: "T", Description: "first line second line\nnew paragraph"}},
		{"multi-line null is text", "title: null\n  more\n", frontMatter{Title: "null more"}},
		{"lists", "tags: [a, 'b c', \"d\"]\nkeywords:\n- x\n- 'y'\naliases:\n  - /old/\n  - /older/ # c\ntitle: L\n",
			frontMatter{Title: "L"}},
		{"nested mapping", "meta:\n  title: not this\n  n: 1\ntitle: this\n", frontMatter{Title: "this"}},
		{"block scalar elsewhere", "summary: >-\n  Some: text # not a comment\n\n  more\nnotes: |\n  - a\ntitle: B\n",
			frontMatter{Title: "B"}},
		{"literal block", "title: |\n  Line one\n    indented\n\n  two\n\ndescription: |-\n  kept\n", frontMatter{Title: "Line one\n  indented\n\ntwo\n", Description: "kept"}},
		{"folded block", "description: >\n  Folded\n  text\n\n  next: paragraph\n\n\ntitle: >+\n  T\n\n", frontMatter{Title: "T\n\n", Description: "Folded text\nnext: paragraph\n"}},
		{"unicode", "title: Café – 日本語 🙂\n", frontMatter{Title: "Café – 日本語 🙂"}},
		{"CRLF", "title: A\r\ndescription: B\r\n", frontMatter{Title: "A", Description: "B"}},
		{"lone CR", "title: A\rdescription: B\r", frontMatter{Title: "A", Description: "B"}},
		{"comments only", "# nothing here\n\n", frontMatter{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y := []byte(tc.yaml)
			got, ok := fastFrontMatter(y)
			if !ok {
				t.Fatalf("the fast path does not decide %q", y)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("fast path (-want +got):\n%s", diff)
			}
			checkFastFrontMatter(t, y)
		})
	}
}

// fmKeys and fmValues are the pieces the generated blocks are made of: the shapes real front
// matter has and the ones a reader without a YAML parser gets wrong.
var (
	fmKeys = []string{
		"title", "title", "title", "description", "description", "ms.date", "online version", "schema",
		"Module Name", "tags", "author", "Title", "title ", "'title'", `"title"`, "? title", "<<", "t#x", "ti tle",
		"title\t", "1", "null", "~", "-x", "a:b", "x/y", "é", "description2", "&a title", "[a]", "{a: b}",
	}
	fmValues = []string{
		// plain scalars
		"Get-Widget", "A title: with colon", "a #comment", "a#b", "123", "1e3", "0x1F", "0o17", "1_000", ".5", "+1", "-1",
		"2024-01-01", "2024-01-01T10:00:00Z", "12/12/2022", "2.0.0", "true", "False", "yes", "no", "on", "null", "~",
		"Null", "NULL", ".inf", ".NaN", "https://x.example/a?b=c&d=e", "50%", "a'b", `a "b" c`, "é ü 日本", "a\u00a0b",
		"x\u0085y", "x\u2028y", "\ufeffx", "x\ufeff", "[x]", "@x", "`x`", "%x", "!x", "&a x", "*a", "!!str 5", "!!int 5",
		"!!binary aGk=", "? x", ": x", "-x", "--", "- x", "a: b", "a:b", "a:", "#x", "a\tb", "a \\ b", "trailing  ",
		"x\x00", "x\x7f", "\xff", "\xed\xa0\x80", "a,b", "a]b", "a}b", "{a", "x ---", "...",
		// quoted scalars
		`"a"`, `""`, `''`, `'a''b'`, `'a'' '`, `"a\"b"`, `"a\\b"`, `"a\nb"`, `"\u00e9"`, `"\uD800"`, `"\u0000"`, `"\uFFFE"`,
		`"\x41"`, `"\U0001F600"`, `"a" # c`, `"a"#c`, `"a" b`, `'a' b`, `"unterminated`, `'unterminated`, "\"a\tb\"",
		`"\/"`, `"\0"`, `"\e"`, `"\ "`, `"\_"`, `"\N"`, `"\u12"`, `"a\`, `' #x'`, `"a: b"`, `'a: b'`, `"multi` + "\n  line\"",
		"'multi\n  line'",
		// flow collections
		"[a, b]", "[]", "[ ]", "[a,]", "[a,,b]", `["a", 'b']`, "[a: b]", "[a, [b]]", "{a: b}", "{}", "[a, b] # c",
		"[a, b]#c", "[a", "[a b, c-d]", "[-a]", "[a#b]", "[?a]", "[a, b] x", "[ 'a' , \"b\" ]", "[https://x]",
		// empty values
		"", " # comment", "#comment",
		// block scalars
		"|\n  line1\n  line2", ">-\n  folded\n  text\n\n  para", "|+\n  x\n", "|2\n  x", "| # c\n  x", ">\n\n   x\n  y",
		"|\n  a\n b", "|\n", "|\n  # not a comment\n  key: v", ">\n    a\n  b", "|x\n  a", "|-\n\n  a\n\n", "> \n  a",
		"|+\n  a\n\n", ">\n  a\n  b\n\n  c\n", "|-\n  a\n\n  b", ">+\n  a\n", ">\n  a\n   b", "|\n  a  \n", ">\n  a  \n  b",
		"|\n\n  a", ">\n  a\n  \n   \n  b", "|\n  a\n    b\n  c", "|+\n  a\n  \n", ">-\n  é #x\n  'q'", "|\n  a\n# c\n\n",
		// multi-line plain scalars
		"first\n  second", "first\n  second\n\n  third", "first\n  - second", "first\n  # c", "first\n  # c\n  more",
		"first\n  a: b", "first\n\tsecond", "first\n  second # c", "first\n  [x]", "first\n\n\n  x", "first\n  #x\nnext: y",
		"first\n  x:", "first\n  'q'", "first \n  second ",
		// block sequences and nested mappings
		"\n  - a\n  - b", "\n- a\n- b", "\n  - a\n   - b", "\n  -a", "\n  - a: b", "\n  - [a]", "\n  -\n  - b",
		"\n  - 'q'", "\n  - \"q\" #c", "\n  a: 1\n  b: 2", "\n  a: 1\n  a: 2", "\n  a:\n    b: c", "\n  a: 1\n   b: 2",
		"\n  a: 1\n - b", "\n  # c\n  - a", "\n- a\n  - b", "\n  - a\n  b: c", "\n  a: |\n    x", "\n  a: 'x'\n  b: [y]",
		"\n  - a\n\n  - b", "\n  title: nested", "\n- a\n-", "\n  - a\n  -  b  ",
		// anchors and aliases
		"&x val", "*x", "&x\n  a: 1",
	}
)

// fmCommonValues are shapes of fmValues that real front matter uses.
var fmCommonValues = []string{
	"Get-Widget", "a #comment", "a#b", "123", "2024-01-01", "12/12/2022", "2.0.0", "true", "null", "~",
	"https://x.example/a?b=c&d=e", "50%", "a'b", `a "b" c`, "é ü 日本", `"a"`, `""`, `''`, `'a''b'`, `"a\"b"`,
	`"a: b"`, `'a: b'`, `"a" # c`, "[a, b]", "[]", `["a", 'b']`, "", " # comment", "|\n  line1\n  line2",
	">-\n  folded\n  text\n\n  para", "first\n  second", "first\n  second\n\n  third", "\n  - a\n  - b", "\n- a\n- b",
	"\n  a: 1\n  b: 2", "\n  - 'q'", "\n  title: nested",
}

// genFrontMatter builds a random front-matter block of 1–12 entries from fmKeys and fmValues,
// then sometimes adds comments, blank lines, indentation, duplicates, tabs, a byte-order mark
// or other line endings.
func genFrontMatter(rng *rand.Rand) []byte {
	var lines []string
	n := 1 + rng.IntN(12)
	tricky := []int{0, 5, 20, 100}[rng.IntN(4)] // percent of entries drawn from all shapes
	used := map[string]bool{}
	for range n {
		key := []string{"title", "description", "ms.date", "online version", "author", "tags", "Title"}[rng.IntN(7)]
		value := fmCommonValues[rng.IntN(len(fmCommonValues))]
		if rng.IntN(100) < tricky {
			key = fmKeys[rng.IntN(len(fmKeys))]
		}
		if rng.IntN(100) < tricky {
			value = fmValues[rng.IntN(len(fmValues))]
		}
		if used[key] && rng.IntN(100) >= tricky {
			key += fmt.Sprint("_", len(lines)) // a repeated key only in tricky blocks
		}
		used[key] = true
		sep := ": "
		switch {
		case value == "" || value[0] == '\n':
			sep = ":"
		case rng.IntN(20) == 0:
			sep = []string{":", ":  ", " : ", ":\t"}[rng.IntN(4)]
		}
		lines = append(lines, key+sep+value)
		switch rng.IntN(12) {
		case 0:
			lines = append(lines, "# a comment")
		case 1:
			lines = append(lines, "")
		case 2:
			lines = append(lines, "   ")
		case 3:
			lines = append(lines, "  # indented comment")
		}
	}
	if rng.IntN(100) < tricky/2 {
		i := rng.IntN(len(lines))
		lines[i] = strings.Repeat(" ", 1+rng.IntN(2)) + lines[i]
	}
	y := strings.Join(lines, "\n") + "\n"
	switch rng.IntN(40) {
	case 0:
		y = strings.ReplaceAll(y, "\n", "\r\n")
	case 1:
		y = strings.ReplaceAll(y, "\n", "\r")
	case 2:
		i := rng.IntN(len(y))
		y = y[:i] + "\t" + y[i:]
	case 3:
		y = "\ufeff" + y
	case 4:
		y = y + "--- \nother: doc\n"
	case 5:
		y = "%YAML 1.2\n" + y
	}
	return []byte(y)
}

// TestFastFrontMatterDifferential compares the fast path with yaml.v3, and parseFrontMatter
// with the reference, on generated blocks of every shape in fmKeys and fmValues: 30,000 with
// AGENTFILES_FULL=1, 5,000 by default (the first 5,000 of the same sequence), 3,000 with -short.
func TestFastFrontMatterDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	n := testsize.Count(t, 30000, 5000)
	if testing.Short() {
		n = 3000
	}
	decided := 0
	for range n {
		if checkFastFrontMatter(t, genFrontMatter(rng)) {
			decided++
		}
	}
	// The generator is mostly tricky input; if the fast path decided almost none of it, the
	// comparison above would prove little.
	if decided < n/10 {
		t.Errorf("the fast path decided only %d of %d generated blocks", decided, n)
	}
	t.Logf("the fast path decided %d of %d generated blocks", decided, n)
}

// TestFrontMatterCorpusDecided checks that the fast path decides nearly every block of the
// front-matter benchmark corpus, the shapes real documentation uses, and agrees with yaml.v3
// on all of them.
func TestFrontMatterCorpusDecided(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 27))
	const n = 600
	decided := 0
	for i := range n {
		if checkFastFrontMatter(t, []byte(fmBlock(rng, i, "Get-WidgetCache", "get-widgetcache"))) {
			decided++
		}
	}
	if decided < n*98/100 { // all but the blocks with an anchor
		t.Errorf("the fast path decided %d of %d corpus blocks, want at least 98%%", decided, n)
	}
}

// TestNewMalformedFrontMatter: blocks that yaml.v3 rejects, including ones on which it panics
// (a merge key after a non-scalar key), leave New working and the title to the first heading.
func TestNewMalformedFrontMatter(t *testing.T) {
	for _, tc := range []struct{ name, content, want string }{
		{"unterminated quote", "---\ntitle: \"a\nx: [\n---\n# Heading\n", "Heading"},
		{"merge after a sequence key", "---\n[a]: b\n<<: {c: d}\n---\n# Heading\n", "Heading"},
		{"merge after a mapping key", "---\n{a: b}: c\n<<: {}\ntitle: T\n---\n# Heading\n", "Heading"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := New(context.Background(), []Root{{Label: "r", FS: fstest.MapFS{"a.md": {Data: []byte(tc.content)}}}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, reg.Files()[0].Title); diff != "" {
				t.Errorf("title (-want +got):\n%s", diff)
			}
		})
	}
}
