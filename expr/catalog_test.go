package expr

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

// A catalog written by hand: comments everywhere, aligned trailing comments, blank lines,
// mixed quoting and flow/block styles.
const handWritten = `# Guide catalog — edited by hand.
# Keep categories alphabetical.

categories:
  docs:   {dir: docs, patterns: ['*.md'], description: "Product docs"}   # main docs
  lang:
    dir: lang          # one file per language
    patterns:
      - "*.md"
    description: Languages

  # Team rules.
  rules: {dir: rules}

collections:
  mixed-example:
    description: Demonstrates both syntaxes
    categories:
      - lang                      # default patterns
      - docs: ["getting-started*.md"]   # override
  onboarding: {expression: "docs/intro+setup,lang/go"}   # stored expression

# end of file
`

func setupHandWritten(t *testing.T) (*Catalog, string) {
	t.Helper()
	dir := testfiles.Tree(t, map[string]string{"docs/intro.md": "", "lang/go.md": "", "rules/a.md": ""})
	return newTestCatalog(t, dir, handWritten), filepath.Join(dir, "catalog.yaml")
}

// edited compares two texts line by line, assuming one contiguous change, and returns the
// lines removed from before and inserted in after, and the byte offset of the change.
func edited(before, after string) (removed, inserted string, at int) {
	b, a := strings.SplitAfter(before, "\n"), strings.SplitAfter(after, "\n")
	p := 0
	for p < len(b) && p < len(a) && b[p] == a[p] {
		at += len(b[p])
		p++
	}
	s := 0
	for s < len(b)-p && s < len(a)-p && b[len(b)-1-s] == a[len(a)-1-s] {
		s++
	}
	return strings.Join(b[p:len(b)-s], ""), strings.Join(a[p:len(a)-s], ""), at
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCatalogRoundTripAddCollection(t *testing.T) {
	c, path := setupHandWritten(t)
	err := c.AddCollection(context.Background(), Collection{
		Name: "new-hires", Description: "First week",
		Categories: []Term{{Name: "rules"}, {Name: "docs", Patterns: []string{"intro*.md", "setup.md"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	after := readFile(t, path)
	removed, inserted, at := edited(handWritten, after)
	if removed != "" {
		t.Errorf("adding a collection changed existing bytes: removed %q", removed)
	}
	wantInserted := `  new-hires:
    description: First week
    categories:
      - rules
      - docs: ["intro*.md", "setup.md"]
`
	if diff := cmp.Diff(wantInserted, inserted); diff != "" {
		t.Errorf("inserted text (-want +got):\n%s", diff)
	}
	if wantAt := strings.Index(handWritten, "\n# end of file"); at != wantAt {
		t.Errorf("inserted at byte %d, want right after the last collection (byte %d)", at, wantAt)
	}
	if after != string(c.Bytes()) {
		t.Error("file and Bytes() differ")
	}
	// The saved file loads back to the same model.
	again, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c.Collections(), again.Collections()); diff != "" {
		t.Errorf("reloaded collections (-mem +file):\n%s", diff)
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	if len(matches) > 0 {
		t.Errorf("temporary files left behind: %v", matches)
	}
}

func TestCatalogEditsTouchOnlyTheirEntry(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name              string
		edit              func(*Catalog) error
		removed, inserted string
	}{
		{
			name: "add category after a block entry",
			edit: func(c *Catalog) error {
				return c.AddCategory(ctx, Category{Name: "tools", Dir: "rules", Patterns: []string{"*.txt"}, Description: "Tools"})
			},
			inserted: "  tools: {dir: rules, patterns: [\"*.txt\"], description: Tools}\n",
		},
		{
			name: "update flow category keeps its trailing comment",
			edit: func(c *Catalog) error {
				_, err := c.UpdateCategory(ctx, "docs", func(cat *Category) error { cat.Description = "Docs"; return nil })
				return err
			},
			removed:  "  docs:   {dir: docs, patterns: ['*.md'], description: \"Product docs\"}   # main docs\n",
			inserted: "  docs: {dir: docs, patterns: ['*.md'], description: Docs} # main docs\n",
		},
		{
			name: "update block category keeps inner comments",
			edit: func(c *Catalog) error {
				_, err := c.UpdateCategory(ctx, "lang", func(cat *Category) error { cat.Patterns = []string{"*.md", "*.txt"}; return nil })
				return err
			},
			removed:  "    dir: lang          # one file per language\n    patterns:\n      - \"*.md\"\n",
			inserted: "    dir: lang # one file per language\n    patterns: [\"*.md\", \"*.txt\"]\n",
		},
		{
			name:    "remove category with its head comment",
			edit:    func(c *Catalog) error { return c.RemoveCategory(ctx, "rules") },
			removed: "  # Team rules.\n  rules: {dir: rules}\n",
		},
		{
			name: "switch a collection to an expression",
			edit: func(c *Catalog) error {
				_, err := c.UpdateCollection(ctx, "mixed-example", func(col *Collection) error {
					col.Categories, col.Expression = nil, "lang,docs/getting-started*.md"
					return nil
				})
				return err
			},
			removed:  "    categories:\n      - lang                      # default patterns\n      - docs: [\"getting-started*.md\"]   # override\n",
			inserted: "    expression: \"lang,docs/getting-started*.md\"\n",
		},
		{
			name:    "remove the last collection",
			edit:    func(c *Catalog) error { return c.RemoveCollection(ctx, "onboarding") },
			removed: "  onboarding: {expression: \"docs/intro+setup,lang/go\"}   # stored expression\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, path := setupHandWritten(t)
			if err := tt.edit(c); err != nil {
				t.Fatal(err)
			}
			removed, inserted, _ := edited(handWritten, readFile(t, path))
			if removed != tt.removed || inserted != tt.inserted {
				t.Errorf("edit replaced %q with %q; want %q with %q", removed, inserted, tt.removed, tt.inserted)
			}
			if _, err := Load(path, Options{}); err != nil {
				t.Errorf("edited file does not load: %v", err)
			}
		})
	}
}

func TestCatalogEditsOfEmptyAndMissingSections(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct{ name, before, after string }{
		{"empty file", "", "categories:\n  d: {dir: d}\n"},
		{"comment only", "# hello", "# hello\ncategories:\n  d: {dir: d}\n"},
		{"null section", "categories:\ncollections: {}\n", "categories:\n  d: {dir: d}\ncollections: {}\n"},
		{"flow section becomes block", "categories: {x: {dir: d}}\n", "categories:\n  x: {dir: d}\n  d: {dir: d}\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New([]byte(tt.before), testfiles.Tree(t, map[string]string{"d/a.md": ""}), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.AddCategory(ctx, Category{Name: "d", Dir: "d"}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.after, string(c.Bytes())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCatalogValidationNamesTheLine(t *testing.T) {
	for _, tt := range []struct{ yaml, line, msg string }{
		{"categories:\n  a: {dir: a}\n  b: {patterns: [x]}\n", ":3", `category "b" needs a dir`},
		{"categories:\n  a: {dir: a, pattern: x}\n", ":2", `unknown key "pattern"`},
		{"categories:\n  a: {dir: a, patterns: [\"../x\"]}\n", ":2", `'..'`},
		{"categories:\n  a b: {dir: a}\n", ":2", "cannot be used in an expression"},
		{"categorie:\n  a: {dir: a}\n", ":1", `unknown top-level key "categorie"`},
		{"collections:\n  c:\n    description: x\n", ":2", "needs categories"},
		{"collections:\n  c: {expression: \"a,,b\"}\n", ":2", "empty term"},
		{"collections:\n  c:\n    categories:\n      - a\n      - {a: [], b: [x]}\n", ":5", "each item is a name or a one-key map"},
		{"collections:\n  c: {categories: [a], expression: a}\n", ":2", "both categories and expression"},
		{"categories:\n  a: {dir: a}\ncollections:\n  a: {categories: [a]}\n", ":4", "same name as a category"},
		{"categories: [a, b]\n", ":1", "must be a mapping"},
		{"categories:\n  a: {dir: a\n", "", "not valid YAML"},
	} {
		_, err := New([]byte(tt.yaml), t.TempDir(), Options{})
		var xe *agentfiles.Error
		if !errors.As(err, &xe) || xe.Code != CodeInvalidCatalog {
			t.Errorf("%q: err = %v, want INVALID_CATALOG", tt.yaml, err)
			continue
		}
		if !strings.HasSuffix(xe.Arg, tt.line) || !strings.Contains(xe.Message, tt.msg) {
			t.Errorf("%q: Arg %q Message %q; want line %q and %q", tt.yaml, xe.Arg, xe.Message, tt.line, tt.msg)
		}
	}
}

func TestCatalogMutationErrors(t *testing.T) {
	ctx := context.Background()
	c, path := setupHandWritten(t)
	before := readFile(t, path)
	noop := func(*Collection) error { return nil }
	for _, tt := range []struct {
		name string
		err  error
		code agentfiles.Code
	}{
		{"bad name", c.AddCategory(ctx, Category{Name: "_sys", Dir: "docs"}), CodeInvalidName},
		{"taken by category", c.AddCollection(ctx, Collection{Name: "docs", Expression: "lang"}), agentfiles.CodeAlreadyExists},
		{"taken by collection", c.AddCategory(ctx, Category{Name: "onboarding", Dir: "docs"}), agentfiles.CodeAlreadyExists},
		{"missing dir", c.AddCategory(ctx, Category{Name: "x", Dir: "nope"}), agentfiles.CodeInvalidArgument},
		{"bad pattern", c.AddCategory(ctx, Category{Name: "x", Dir: "docs", Patterns: []string{"{a"}}), CodeInvalidPattern},
		{"unknown member", c.AddCollection(ctx, Collection{Name: "x", Categories: []Term{{Name: "lnag"}}}), CodeUnknownName},
		{"self member", c.AddCollection(ctx, Collection{Name: "x", Expression: "docs,x"}), CodeCycle},
		{"both forms", c.AddCollection(ctx, Collection{Name: "x", Expression: "docs", Categories: []Term{{Name: "docs"}}}), agentfiles.CodeInvalidArgument},
		{"category in use", c.RemoveCategory(ctx, "lang"), CodeInUse},
		{"unknown category", c.RemoveCategory(ctx, "nope"), CodeUnknownName},
		{"unknown collection", func() error { _, err := c.UpdateCollection(ctx, "nope", noop); return err }(), CodeUnknownName},
		{"rename", func() error {
			_, err := c.UpdateCategory(ctx, "docs", func(cat *Category) error { cat.Name = "d2"; return nil })
			return err
		}(), agentfiles.CodeInvalidArgument},
		{"cycle by update", func() error {
			if err := c.AddCollection(ctx, Collection{Name: "outer", Categories: []Term{{Name: "onboarding"}}}); err != nil {
				return err
			}
			_, err := c.UpdateCollection(ctx, "onboarding", func(col *Collection) error { col.Expression = "docs,outer"; return nil })
			return err
		}(), CodeCycle},
	} {
		var xe *agentfiles.Error
		if !errors.As(tt.err, &xe) || xe.Code != tt.code {
			t.Errorf("%s: err = %v, want %s", tt.name, tt.err, tt.code)
		}
	}
	// Only the one successful AddCollection ("outer") changed the file.
	removed, inserted, _ := edited(before, readFile(t, path))
	if removed != "" || !strings.HasPrefix(inserted, "  outer:") {
		t.Errorf("failed mutations changed the file: removed %q inserted %q", removed, inserted)
	}
}

func TestCatalogDirRoots(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"inside/a.md": "", "outside/b.md": ""})
	c, err := New(nil, dir, Options{DirRoots: []string{filepath.Join(dir, "inside")}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.AddCategory(ctx, Category{Name: "in", Dir: "inside"}); err != nil {
		t.Errorf("inside: %v", err)
	}
	for _, d := range []string{"outside", "inside/..", "/"} {
		if err := c.AddCategory(ctx, Category{Name: "out", Dir: d}); !errors.Is(err, agentfiles.ErrInvalidArgument) {
			t.Errorf("%s: err = %v, want INVALID_ARGUMENT", d, err)
		}
	}
}

func TestCatalogChangedOnDisk(t *testing.T) {
	c, path := setupHandWritten(t)
	ctx := context.Background()
	edited := handWritten + "# someone else's edit\n"
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.AddCategory(ctx, Category{Name: "x", Dir: "docs"}); !errors.Is(err, ErrCatalogChanged) {
		t.Fatalf("err = %v, want CATALOG_CHANGED", err)
	}
	if got := readFile(t, path); got != edited {
		t.Error("the other edit was overwritten")
	}
	if _, ok := c.Category("x"); ok {
		t.Error("the failed mutation is visible")
	}
	if err := c.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := c.AddCategory(ctx, Category{Name: "x", Dir: "docs"}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); !strings.Contains(got, "# someone else's edit") || !strings.Contains(got, "x: {dir: docs}") {
		t.Errorf("after reload, file = %q", got)
	}
}

// TestCatalogConcurrent mutates and reads one file-backed catalog from many goroutines.
func TestCatalogConcurrent(t *testing.T) {
	c, path := setupHandWritten(t)
	ctx := context.Background()
	const writers, readers, perWriter = 4, 8, 10
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				name := fmt.Sprintf("w%d-%d", w, i)
				if err := c.AddCategory(ctx, Category{Name: name, Dir: "docs"}); err != nil {
					t.Error(err)
				}
				if _, err := c.UpdateCategory(ctx, "docs", func(cat *Category) error { cat.Description = name; return nil }); err != nil {
					t.Error(err)
				}
				if i%2 == 0 {
					if err := c.AddCollection(ctx, Collection{Name: "c-" + name, Categories: []Term{{Name: name}}}); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	for range readers {
		wg.Go(func() {
			for range perWriter {
				if _, err := c.Content(ctx, "mixed-example,docs,onboarding", ContentOptions{}); err != nil {
					t.Error(err)
				}
				_ = c.Categories()
				_ = c.Collections()
			}
		})
	}
	wg.Wait()
	again, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(again.Categories()), 3+writers*perWriter; got != want {
		t.Errorf("%d categories in the file, want %d", got, want)
	}
	if got, want := len(again.Collections()), 2+writers*perWriter/2; got != want {
		t.Errorf("%d collections in the file, want %d", got, want)
	}
	if !strings.HasPrefix(readFile(t, path), "# Guide catalog — edited by hand.\n# Keep categories alphabetical.\n") {
		t.Error("head comments lost")
	}
}
