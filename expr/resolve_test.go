package expr

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

// TestPatternPriority covers every combination of the three tiers: the call (pattern
// argument or the term's own patterns), the collection override and the category default.
func TestPatternPriority(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{
		"cat/call.md": "", "cat/coll.md": "", "cat/default.md": "", "cat/other.txt": "",
	})
	type tier struct {
		source, pattern string
		docs            []string
	}
	var (
		callTier     = tier{SourceCall, "call", []string{"cat/call.md"}}
		collTier     = tier{SourceCollection, "coll*", []string{"cat/coll.md"}}
		defaultTier  = tier{SourceCategory, "default*", []string{"cat/default.md"}}
		fallbackTier = tier{SourceCategory, "*.md", []string{"cat/call.md", "cat/coll.md", "cat/default.md"}}
	)
	for _, catPatterns := range []string{"", `patterns: ["default*"]`} {
		for _, via := range []string{"category", "collection without override", "collection with override"} {
			for _, call := range []string{"none", "pattern argument", "term pattern", "both"} {
				name := fmt.Sprintf("%s/%s/call=%s", map[bool]string{true: "no default", false: "default"}[catPatterns == ""], via, call)
				t.Run(name, func(t *testing.T) {
					yaml := "categories:\n  cat: {dir: cat, " + catPatterns + "}\n" +
						"collections:\n  plain: {categories: [cat]}\n  override: {categories: [{cat: [\"coll*\"]}]}\n"
					c := newTestCatalog(t, t.TempDir(), strings.Replace(yaml, "dir: cat", "dir: "+dir+"/cat", 1))
					expr := map[string]string{"category": "cat", "collection without override": "plain", "collection with override": "override"}[via]
					var opts ResolveOptions
					switch call {
					case "pattern argument":
						opts.Pattern = "call"
					case "term pattern":
						expr += "/call"
					case "both": // the term's own patterns are the more specific call
						opts.Pattern = "default*"
						expr += "/call"
					}
					want := fallbackTier
					switch {
					case call != "none":
						want = callTier
					case via == "collection with override":
						want = collTier
					case catPatterns != "":
						want = defaultTier
					}
					res, err := resolveExpr(t, c, expr, opts)
					if err != nil {
						t.Fatal(err)
					}
					got := tier{docs: docPaths(res.Documents)}
					if len(res.Patterns) == 1 {
						got.source, got.pattern = res.Patterns[0].Source, res.Patterns[0].Pattern
					}
					if diff := cmp.Diff(want, got, cmp.AllowUnexported(tier{})); diff != "" {
						t.Errorf("Resolve(%q, pattern=%q) (-want +got):\n%s", expr, opts.Pattern, diff)
					}
				})
			}
		}
	}
}

// TestNestedOverride: the override written nearest to the call (the outer collection) wins.
func TestNestedOverride(t *testing.T) {
	c := treeCatalog(t, map[string]string{"cat/inner.md": "", "cat/outer.md": ""}, `categories:
  cat: {dir: cat}
collections:
  inner: {categories: [{cat: ["inner*"]}]}
  outer: {categories: [{inner: ["outer*"]}]}
`)
	for expr, want := range map[string][]string{"inner": {"cat/inner.md"}, "outer": {"cat/outer.md"}} {
		res, err := resolveExpr(t, c, expr, ResolveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, docPaths(res.Documents)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", expr, diff)
		}
	}
}

const cycleCatalog = `categories:
  base: {dir: base}
collections:
  a: {categories: [b]}
  b: {categories: [a]}
  self: {expression: "self"}
  via: {expression: "base,a"}
  top: {categories: [left, right, bottom]}
  left: {categories: [bottom]}
  right: {expression: "bottom"}
  bottom: {categories: [base]}
  broken: {categories: [bsae]}
`

func TestCycles(t *testing.T) {
	c := treeCatalog(t, map[string]string{"base/one.md": "1", "base/two.md": "2"}, cycleCatalog)
	for expr, cycle := range map[string]string{
		"a":      "a → b → a",
		"b":      "b → a → b",
		"self":   "self → self",
		"via":    "a → b → a",
		"base,a": "a → b → a",
	} {
		_, err := resolveExpr(t, c, expr, ResolveOptions{})
		var xe *agentfiles.Error
		if !errors.As(err, &xe) || !errors.Is(err, ErrCycle) {
			t.Fatalf("Resolve(%q) = %v, want CYCLE", expr, err)
		}
		if xe.Arg != cycle || !strings.Contains(xe.Message, cycle) {
			t.Errorf("Resolve(%q): Arg %q, Message %q; want the cycle %q", expr, xe.Arg, xe.Message, cycle)
		}
	}
}

func TestDiamondResolvesOnce(t *testing.T) {
	c := treeCatalog(t, map[string]string{"base/one.md": "1", "base/two.md": "2"}, cycleCatalog)
	res, err := resolveExpr(t, c, "top", ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"base/one.md", "base/two.md"}, docPaths(res.Documents)); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	if len(res.Patterns) != 1 {
		t.Errorf("base was looked up %d times, want once: %+v", len(res.Patterns), res.Patterns)
	}
}

func TestUnknownName(t *testing.T) {
	c := treeCatalog(t, map[string]string{"base/one.md": "1"}, cycleCatalog)
	for expr, want := range map[string]string{
		"bsae":      `no collection or category is named "bsae"; did you mean base?`,
		"broken":    `no collection or category is named "bsae" (listed in collection "broken", fix it with collection_update); did you mean base?`,
		"zzzzzzzzz": `no collection or category is named "zzzzzzzzz". Call`,
		"tpo/x":     `did you mean top?`,
	} {
		_, err := resolveExpr(t, c, expr, ResolveOptions{})
		var xe *agentfiles.Error
		if !errors.As(err, &xe) || xe.Code != CodeUnknownName {
			t.Fatalf("Resolve(%q) = %v, want UNKNOWN_NAME", expr, err)
		}
		if !strings.Contains(xe.Message, want) {
			t.Errorf("Resolve(%q) message %q, want it to contain %q", expr, xe.Message, want)
		}
	}
}

func TestResolveBadCallPattern(t *testing.T) {
	c := treeCatalog(t, map[string]string{"base/one.md": "1"}, cycleCatalog)
	for _, p := range []string{"a,b", "../x", "/etc", "a+"} {
		if _, err := resolveExpr(t, c, "base", ResolveOptions{Pattern: p}); !errors.Is(err, ErrInvalidPattern) {
			t.Errorf("pattern %q: err = %v, want INVALID_PATTERN", p, err)
		}
	}
	res, err := resolveExpr(t, c, "base", ResolveOptions{Pattern: "one+two"})
	if err != nil || len(res.Documents) != 1 || len(res.Patterns) != 2 {
		t.Errorf("pattern one+two: %+v, %v", res, err)
	}
}
