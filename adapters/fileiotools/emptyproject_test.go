package fileiotools_test

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/google/go-cmp/cmp"
)

// file_list of a project's root says when the project holds no files, instead of an empty list
// a model reads as "nothing matched"; a project with files gets no such note.
func TestListOfEmptyProjectSaysSo(t *testing.T) {
	tools := fileioTools(t)
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("key-a", "alice"))
	if _, err := adapterstest.CallContext(ctx, t, tools, "file_write", `{"project":"p","path":"/a.txt","content":"x"}`); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ args, note string }{
		{`{"project":"nope"}`, `project "nope" holds no files (a project exists once a file is written to it): check the project name, or create a file with file_write`},
		{`{"project":"nope","path":"/","depth":3}`, `project "nope" holds no files (a project exists once a file is written to it): check the project name, or create a file with file_write`},
		{`{"project":"p"}`, ""},
	}
	for _, tc := range tests {
		m, err := adapterstest.CallContext(ctx, t, tools, "file_list", tc.args)
		if err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		note, _ := m["note"].(string)
		if diff := cmp.Diff(tc.note, note); diff != "" {
			t.Errorf("%s: note (-want +got):\n%s", tc.args, diff)
		}
	}
}

// A directory has no creation time: file_stat and file_list omit created_at for it instead of
// answering year 1, and keep it for a file.
func TestDirectoriesOmitCreatedAt(t *testing.T) {
	tools := fileioTools(t)
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("key-a", "alice"))
	if _, err := adapterstest.CallContext(ctx, t, tools, "file_write", `{"project":"p","path":"/d/a.txt","content":"x"}`); err != nil {
		t.Fatal(err)
	}
	has := func(m map[string]any, key string) bool { _, ok := m[key]; return ok }
	stat := func(path string) map[string]any {
		m, err := adapterstest.CallContext(ctx, t, tools, "file_stat", `{"project":"p","path":"`+path+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	list, err := adapterstest.CallContext(ctx, t, tools, "file_list", `{"project":"p","path":"/","depth":2}`)
	if err != nil {
		t.Fatal(err)
	}
	entries := list["entries"].([]any)
	type row struct {
		What                 string
		CreatedAt, UpdatedAt bool
	}
	var got []row
	for _, path := range []string{"/d", "/d/a.txt"} {
		m := stat(path)
		got = append(got, row{"stat " + path, has(m, "created_at"), has(m, "updated_at")})
	}
	for _, e := range entries {
		m := e.(map[string]any)
		got = append(got, row{"list " + m["path"].(string), has(m, "created_at"), has(m, "updated_at")})
	}
	want := []row{
		{"stat /d", false, true}, {"stat /d/a.txt", true, true},
		{"list /d", false, true}, {"list /d/a.txt", true, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("which times are present (-want +got):\n%s", diff)
	}
}
