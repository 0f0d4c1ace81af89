package expr

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestSeedGolden resolves the seed's examples against testdata/seed and compares a readable
// report with testdata/seed.golden (go test ./expr -run SeedGolden -update rewrites it).
func TestSeedGolden(t *testing.T) {
	cat, err := Load("testdata/seed/catalog.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ expr, pattern string }{
		{expr: "lang/python+java,docs/api,guidelines"},
		{expr: "category/pattern"}, // the seed's placeholder name: an UNKNOWN_NAME
		{expr: "lang", pattern: "go"},
		{expr: "docs"},
		{expr: "docs/api+tutorial,lang/python"},
		{expr: "mixed-example"},
		{expr: "onboarding"},
		{expr: "onboarding", pattern: "api"},
		{expr: " lang / python + java , docs/api "},
		{expr: "lang/rust,onboarding,lang/*"},
		{expr: "docs/nothing-here"},
	}
	var b strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&b, "== get_content(%q", c.expr)
		if c.pattern != "" {
			fmt.Fprintf(&b, ", pattern=%q", c.pattern)
		}
		b.WriteString(")\n")
		e, err := Parse(c.expr)
		if err != nil {
			fmt.Fprintf(&b, "parse error: %v\n\n", err)
			continue
		}
		fmt.Fprintf(&b, "canonical: %s\n", e)
		for i, term := range e.Terms {
			fmt.Fprintf(&b, "term %d: name=%q patterns=%q\n", i+1, term.Name, term.Patterns)
		}
		res, err := cat.Resolve(context.Background(), e, ResolveOptions{Pattern: c.pattern})
		if err != nil {
			fmt.Fprintf(&b, "resolve error: %v\n\n", err)
			continue
		}
		for _, p := range res.Patterns {
			fmt.Fprintf(&b, "lookup: %s/%s from %s tier, %d found\n", p.Category, p.Pattern, p.Source, p.Found)
		}
		for _, d := range res.Documents {
			fmt.Fprintf(&b, "document: %s/%s\n", d.Category, d.Path)
		}
		if len(res.Documents) == 0 {
			out, err := cat.Content(context.Background(), c.expr, ContentOptions{Resolve: ResolveOptions{Pattern: c.pattern}})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "message: %s\n", out.Message)
		}
		b.WriteString("\n")
	}
	golden := filepath.Join("testdata", "seed.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("seed report differs from %s (-want +got):\n%s", golden, diff)
	}
}

// TestSeedMixedExampleYAML checks that the seed's mixed-example YAML loads into the model the
// seed describes: plain names use defaults, one-key maps carry overrides.
func TestSeedMixedExampleYAML(t *testing.T) {
	cat, err := Load("testdata/seed/catalog.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := cat.Collection("mixed-example")
	if !ok {
		t.Fatal("mixed-example not loaded")
	}
	want := Collection{
		Name:        "mixed-example",
		Description: "Demonstrates both syntaxes",
		Categories: []Term{
			{Name: "api-reference"},
			{Name: "user-guides", Patterns: []string{"getting-started*.md"}},
			{Name: "tutorials"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mixed-example (-want +got):\n%s", diff)
	}
	onb, _ := cat.Collection("onboarding")
	if diff := cmp.Diff(Collection{Name: "onboarding", Expression: "docs/intro+setup,lang/go"}, onb); diff != "" {
		t.Errorf("onboarding (-want +got):\n%s", diff)
	}
}
