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
