package fileidtools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/fileidtools"
	"github.com/agentfiles/agentfiles/fileid"
	"github.com/google/go-cmp/cmp"
)

// pagingRegistry holds log.md ("# Log" + 320 "## Entry i", each with a "note" line) and 250
// small files, so that the TOC, the search and the listing are all cut at their defaults.
func pagingRegistry(t *testing.T) *fileid.Registry {
	t.Helper()
	reg, err := fileid.New(context.Background(), []fileid.Root{{Label: "d", FS: pagingFS()}}, fileid.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// page calls tool with args, then again with the continuation the result names, until it is
// not truncated; it returns every result. The continuation argument is set from the result
// field, as an agent following the note would.
func page(t *testing.T, tools []adapters.Tool, tool string, args map[string]any, arg, field string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for range 100 {
		raw, _ := json.Marshal(args)
		res, err := adapterstest.Call(t, tools, tool, string(raw))
		if err != nil {
			t.Fatalf("%s %s: %v", tool, raw, err)
		}
		out = append(out, res)
		if res["truncated"] != true {
			return out
		}
		next, ok := res[field]
		if !ok {
			t.Fatalf("%s %s: truncated without %s: %v", tool, raw, field, res["note"])
		}
		if note, _ := res["note"].(string); !strings.Contains(note, arg) || !strings.Contains(note, fmt.Sprint(next)) {
			t.Fatalf("%s: note %q does not say to pass %s %v", tool, note, arg, next)
		}
		args[arg] = next
	}
	t.Fatalf("%s: paging does not end", tool)
	return nil
}

// Every truncated listing of the tools has a working continuation, named by its note and
// reachable through the schema.
func TestEveryTruncatedListingContinues(t *testing.T) {
	tools := fileidtools.Tools(pagingRegistry(t))
	for _, name := range []string{"table_of_contents", "search"} {
		tool, _ := adapters.Find(tools, name)
		for _, p := range map[string][]string{"table_of_contents": {"cursor", "max_entries"}, "search": {"cursor"}}[name] {
			if _, ok := tool.InputSchema.Properties[p]; !ok {
				t.Errorf("%s schema lacks %s", name, p)
			}
		}
	}

	// The TOC: 321 entries, 300 per call by default, and 100 per call when asked.
	for _, args := range []map[string]any{{"fileId": "f1"}, {"fileId": "f1", "max_entries": 100}, {"fileId": "f1", "section": "1"}} {
		var titles []string
		for _, res := range page(t, tools, "table_of_contents", args, "cursor", "next_cursor") {
			for _, e := range res["toc"].([]any) {
				titles = append(titles, e.(map[string]any)["title"].(string))
			}
		}
		want := []string{"Log"}
		for i := range 320 {
			want = append(want, fmt.Sprintf("Entry %d", i))
		}
		if diff := cmp.Diff(want, titles); diff != "" {
			t.Errorf("toc %v (-want +got):\n%s", args, diff)
		}
	}

	// The search: 570 matching lines, 50 (or 500) per call.
	for _, args := range []map[string]any{{"query": "^note"}, {"query": "NOTE", "case_insensitive": true, "max_matches": 500}, {"query": "note", "fileId": "f1"}} {
		var got []string
		for _, res := range page(t, tools, "search", args, "cursor", "next_cursor") {
			for _, r := range res["results"].([]any) {
				fm := r.(map[string]any)
				for _, m := range fm["matches"].([]any) {
					got = append(got, fmt.Sprintf("%s:%v", fm["fileId"], m.(map[string]any)["line"]))
				}
			}
		}
		var want []string
		for i := range 320 {
			want = append(want, fmt.Sprintf("f1:%d", 3+2*i))
		}
		if args["fileId"] == nil {
			for i := range 250 {
				want = append(want, fmt.Sprintf("f%d:2", i+2))
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("search %v (-want +got):\n%s", args, diff)
		}
	}

	// The listing: 251 files, 200 per call.
	var ids []string
	for _, res := range page(t, tools, "list_documentation_files", map[string]any{}, "cursor", "next_cursor") {
		for _, f := range res["files"].([]any) {
			ids = append(ids, f.(map[string]any)["fileId"].(string))
		}
	}
	if len(ids) != 251 || ids[250] != "f251" {
		t.Errorf("listing: %d files, last %v", len(ids), ids[len(ids)-1])
	}

	// A cut section: read_sections with offset = the section's next_offset.
	var content strings.Builder
	args := map[string]any{"fileId": "f1", "section_ids": []string{"1"}, "max_bytes": 1000}
	for range 100 {
		raw, _ := json.Marshal(args)
		res, err := adapterstest.Call(t, tools, "read_sections", string(raw))
		if err != nil {
			t.Fatal(err)
		}
		s := res["sections"].([]any)[0].(map[string]any)
		content.WriteString(s["content"].(string))
		if s["truncated"] != true {
			break
		}
		if !strings.Contains(res["note"].(string), fmt.Sprintf("offset %v", s["next_offset"])) {
			t.Fatalf("note %q does not name offset %v", res["note"], s["next_offset"])
		}
		args["offset"] = s["next_offset"]
	}
	if !strings.HasPrefix(content.String(), "# Log\n## Entry 0\n") || !strings.HasSuffix(content.String(), "## Entry 319\nnote 319\n") {
		t.Errorf("paged section: %d bytes, ends %q", content.Len(), content.String()[max(0, content.Len()-40):])
	}

	// A bad continuation is an INVALID_ARGUMENT (or a file-ID error) that says what to pass.
	for _, args := range []string{`{"query": "x", "cursor": "f1"}`, `{"query": "x", "cursor": "f1:-2"}`, `{"query": "x", "fileId": "f2", "cursor": "f1:3"}`, `{"query": "x", "cursor": "f999:3"}`} {
		_, err := adapterstest.Call(t, tools, "search", args)
		if te, _ := adapters.ErrorOf(err); err == nil || te.Code != "INVALID_ARGUMENT" || !strings.Contains(te.Message, "next_cursor") {
			t.Errorf("%s: %v", args, err)
		}
	}
}

// pagingFS is the tree of pagingRegistry.
func pagingFS() fstest.MapFS {
	var b strings.Builder
	b.WriteString("# Log\n")
	for i := range 320 {
		fmt.Fprintf(&b, "## Entry %d\nnote %d\n", i, i)
	}
	files := fstest.MapFS{"log.md": {Data: []byte(b.String())}}
	for i := range 250 {
		files[fmt.Sprintf("z/%03d.md", i)] = &fstest.MapFile{Data: fmt.Appendf(nil, "# Z%d\nnote z\n", i)}
	}
	return files
}
