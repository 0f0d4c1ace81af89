package expr

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/google/go-cmp/cmp"
)

func renderCatalog(t *testing.T) *Catalog {
	t.Helper()
	return treeCatalog(t, map[string]string{
		"docs/a.md":          "# A\n",
		"docs/b.md":          "# B (no newline)",
		"docs/hello.md.tmpl": "Hello, {{.Name}}!\n",
		"docs/bad.tmpl":      "{{.Name",
		"docs/fail.tmpl":     "{{index .List 5}}",
		"docs/loop.tmpl":     "{{range .List}}0123456789{{end}}",
		"big/big.md":         strings.Repeat("é", 3000), // 6000 bytes, 2-byte runes
		"big/small.md":       "small",
	}, "categories:\n  docs: {dir: docs}\n  big: {dir: big}\n")
}

func TestRenderFormats(t *testing.T) {
	c := renderCatalog(t)
	ctx := context.Background()
	one, err := c.Content(ctx, "docs/a.md", ContentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if one.Content != "# A\n" || one.Message != "" || one.Truncated {
		t.Errorf("single document: %+v", one)
	}
	two, err := c.Content(ctx, "docs/a+b", ContentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "==> docs/a.md <==\n# A\n\n==> docs/b.md <==\n# B (no newline)\n"
	if diff := cmp.Diff(want, two.Content); diff != "" {
		t.Errorf("delimited (-want +got):\n%s", diff)
	}
	mp, err := c.Content(ctx, "docs/a+b", ContentOptions{Render: RenderOptions{Format: FormatMultipart, Boundary: "BOUNDARY"}})
	if err != nil {
		t.Fatal(err)
	}
	mt, params, err := mime.ParseMediaType(mp.ContentType)
	if err != nil || mt != "multipart/mixed" || params["boundary"] != "BOUNDARY" {
		t.Fatalf("content type %q", mp.ContentType)
	}
	r := multipart.NewReader(strings.NewReader(mp.Content), params["boundary"])
	type part struct{ loc, cat, typ, body string }
	var parts []part
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(p)
		parts = append(parts, part{p.Header.Get("Content-Location"), p.Header.Get("X-Category"), p.Header.Get("Content-Type"), string(body)})
	}
	wantParts := []part{
		{"docs/a.md", "docs", "text/markdown; charset=utf-8", "# A\n"},
		{"docs/b.md", "docs", "text/markdown; charset=utf-8", "# B (no newline)"},
	}
	if diff := cmp.Diff(wantParts, parts, cmp.AllowUnexported(part{})); diff != "" {
		t.Errorf("multipart parts (-want +got):\n%s", diff)
	}
	if _, err := c.Content(ctx, "docs/a", ContentOptions{Render: RenderOptions{Format: "html"}}); !errors.Is(err, agentfiles.ErrInvalidArgument) {
		t.Errorf("unknown format: %v", err)
	}
}

func TestRenderTemplates(t *testing.T) {
	c := renderCatalog(t)
	ctx := context.Background()
	out, err := c.Content(ctx, "docs/hello.md.tmpl", ContentOptions{Render: RenderOptions{Data: map[string]any{"Name": "Ada"}}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Content != "Hello, Ada!\n" {
		t.Errorf("template output %q", out.Content)
	}
	for _, p := range []string{"docs/bad.tmpl", "docs/fail.tmpl"} {
		_, err := c.Content(ctx, p, ContentOptions{Render: RenderOptions{Data: map[string]any{"List": []int{1}}}})
		var xe *agentfiles.Error
		if !errors.As(err, &xe) || xe.Code != CodeTemplateError || xe.Arg != p {
			t.Errorf("%s: err = %v, want TEMPLATE_ERROR naming the file", p, err)
		}
	}
	// A template's output is bounded by the budget too.
	out, err = c.Content(ctx, "docs/loop.tmpl", ContentOptions{Render: RenderOptions{
		MaxBytes: 25, Data: map[string]any{"List": make([]int, 1000)}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Content) != 25 || !out.Truncated {
		t.Errorf("template output %d bytes, truncated=%v", len(out.Content), out.Truncated)
	}
}

func TestRenderBudget(t *testing.T) {
	c := renderCatalog(t)
	ctx := context.Background()
	out, err := c.Content(ctx, "big/big+small,docs/a", ContentOptions{Render: RenderOptions{MaxBytes: 1001}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Content) > 1001 || !strings.HasPrefix(out.Content, "==> big/big.md <==\n") || !out.Truncated {
		t.Errorf("content %d bytes, truncated=%v", len(out.Content), out.Truncated)
	}
	if !strings.HasSuffix(out.Content, "é") {
		t.Error("cut in the middle of a UTF-8 sequence")
	}
	wantDocs := []RenderedDocument{
		{Category: "big", Path: "big.md", SizeBytes: 6000, Truncated: true},
		{Category: "big", Path: "small.md", Omitted: true},
		{Category: "docs", Path: "a.md", Omitted: true},
	}
	if diff := cmp.Diff(wantDocs, out.Documents); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	for _, s := range []string{"Output cut at 1001 bytes", "2 documents were left out (big/small.md, docs/a.md)", `"big/big.md"`, "raise max_bytes"} {
		if !strings.Contains(out.Message, s) {
			t.Errorf("message %q lacks %q", out.Message, s)
		}
	}
	huge, err := c.Content(ctx, "docs/a", ContentOptions{Render: RenderOptions{MaxBytes: 1 << 40}})
	if err != nil || !strings.Contains(huge.Message, "max_bytes clamped") {
		t.Errorf("over-large budget: %v, %q", err, huge.Message)
	}
}

func TestNothingMatchedIsSuccess(t *testing.T) {
	c := renderCatalog(t)
	out, err := c.Content(context.Background(), "docs/zzz+yyy", ContentOptions{})
	if err != nil {
		t.Fatalf("nothing matched returned an error: %v", err)
	}
	if out.Content != "" || len(out.Documents) != 0 || !strings.Contains(out.Message, `No documents matched "docs/zzz+yyy". Tried docs/zzz, docs/yyy.`) {
		t.Errorf("%+v", out)
	}
}

// The "name.*" advice is given only when a tried pattern has no extension.
func TestNothingMatchedExtensionAdvice(t *testing.T) {
	c := renderCatalog(t)
	const advice = "also matches name.*"
	for _, tt := range []struct {
		expr string
		want bool
	}{
		{"docs/*.zz", false},
		{"docs/nope.md", false},
		{"docs/sub/*.md+docs/x.txt", false},
		{"docs/zzz", true},
		{"docs/zzz.md+yyy", true},
	} {
		out, err := c.Content(context.Background(), tt.expr, ContentOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tt.expr, err)
		}
		if len(out.Documents) != 0 {
			t.Fatalf("%s matched %v", tt.expr, out.Documents)
		}
		if got := strings.Contains(out.Message, advice); got != tt.want {
			t.Errorf("%s: advice %v, want %v: %q", tt.expr, got, tt.want, out.Message)
		}
	}
}
