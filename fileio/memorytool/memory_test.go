package memorytool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memorytool"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// services returns a fileio.Service over each store, without a rate limit.
func services(t *testing.T) map[string]*fileio.Service {
	t.Helper()
	pg := pgtest.Open(t, pgtest.New(t), pgstore.Open, pgstore.Options{})
	return map[string]*fileio.Service{
		"memstore": storetest.NewService(t, memstore.New(memstore.Options{})),
		"pgstore":  storetest.NewService(t, pg),
	}
}

func newTool(t testing.TB, svc *fileio.Service) *memorytool.Tool {
	t.Helper()
	mem, err := memorytool.New(svc, memorytool.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return mem
}

func alice() context.Context { return agentfilesCtx("key-alice") }

// agentfilesCtx is a context with the identity of apiKey; "" is none.
func agentfilesCtx(apiKey string) context.Context {
	if apiKey == "" {
		return context.Background()
	}
	return agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext(apiKey, apiKey))
}

// step is one memory tool call and its exact tool_result; code is the error code ("" for a
// success).
type step struct {
	input string
	want  string
	code  string
}

func run(t *testing.T, ctx context.Context, mem *memorytool.Tool, steps []step) {
	t.Helper()
	for _, s := range steps {
		res, err := mem.Execute(ctx, json.RawMessage(s.input))
		code := ""
		if err != nil {
			code = agentfiles.ErrorCode(err).String()
		}
		want := memorytool.Result{Content: s.want, IsError: s.code != ""}
		if diff := cmp.Diff(want, res); diff != "" || code != s.code {
			t.Errorf("%s: code %q, want %q; result (-want +got):\n%s", s.input, code, s.code, diff)
		}
	}
}

const listHeader = "Here're the files and directories up to 2 levels deep in %s, excluding hidden items and node_modules:\n"

// TestCommands runs every command and every documented error over both stores.
func TestCommands(t *testing.T) {
	big := strings.Repeat("x", 2048)
	for name, svc := range services(t) {
		t.Run(name, func(t *testing.T) {
			mem := newTool(t, svc)
			run(t, alice(), mem, []step{
				{`{"command":"view","path":"/memories"}`, fmt.Sprintf(listHeader, "/memories") + "0B\t/memories", ""},
				{`{"command":"create","path":"/memories/notes.md","file_text":"alpha\nbeta\ngamma\nbeta\n"}`, "File created successfully at: /memories/notes.md", ""},
				{`{"command":"create","path":"/memories/notes.md","file_text":"again"}`, "Error: File /memories/notes.md already exists", "ALREADY_EXISTS"},
				{`{"command":"create","path":"/memories/projects/bot.md","file_text":"` + big + `"}`, "File created successfully at: /memories/projects/bot.md", ""},
				{`{"command":"create","path":"/memories/.hidden/secret.md","file_text":"s"}`, "File created successfully at: /memories/.hidden/secret.md", ""},
				{`{"command":"create","path":"/memories/node_modules/m.js","file_text":"m"}`, "File created successfully at: /memories/node_modules/m.js", ""},
				{`{"command":"create","path":"/memories/projects/deep/er/file.md","file_text":"yy"}`, "File created successfully at: /memories/projects/deep/er/file.md", ""},
				{`{"command":"create","path":"/memories/projects","file_text":"x"}`, "Error: The path /memories/projects is a directory; create a file below it, such as /memories/projects/notes.md", "IS_DIRECTORY"},
				{`{"command":"create","path":"/memories/notes.md/x.md","file_text":"x"}`, "Error: A parent of /memories/notes.md/x.md is a file, so it cannot contain /memories/notes.md/x.md; choose another path", "NOT_DIRECTORY"},
				{`{"command":"create","path":"/memories","file_text":"x"}`, "Error: The path /memories is a directory; create a file below it, such as /memories/notes.md", "IS_DIRECTORY"},

				// view: directories two levels deep with sizes, hidden items and node_modules left out.
				{`{"command":"view","path":"/memories"}`, fmt.Sprintf(listHeader, "/memories") +
					"2.0K\t/memories\n22B\t/memories/notes.md\n2.0K\t/memories/projects/\n2.0K\t/memories/projects/bot.md\n2B\t/memories/projects/deep/", ""},
				{`{"command":"view","path":"/memories/projects/"}`, fmt.Sprintf(listHeader, "/memories/projects") +
					"2.0K\t/memories/projects\n2.0K\t/memories/projects/bot.md\n2B\t/memories/projects/deep/\n2B\t/memories/projects/deep/er/", ""},
				{`{"command":"view","path":"/memories/projects","view_range":[1,2]}`, "Error: The `view_range` parameter is not allowed when `path` points to a directory.", "INVALID_ARGUMENT"},
				// view: files with line numbers and ranges.
				{`{"command":"view","path":"/memories/notes.md"}`, "Here's the content of /memories/notes.md with line numbers:\n     1\talpha\n     2\tbeta\n     3\tgamma\n     4\tbeta", ""},
				{`{"command":"view","path":"/memories/notes.md","view_range":[2,3]}`, "Here's the content of /memories/notes.md with line numbers:\n     2\tbeta\n     3\tgamma", ""},
				{`{"command":"view","path":"/memories/notes.md","view_range":[3,-1]}`, "Here's the content of /memories/notes.md with line numbers:\n     3\tgamma\n     4\tbeta", ""},
				{`{"command":"view","path":"/memories/notes.md","view_range":[4,100]}`, "Here's the content of /memories/notes.md with line numbers:\n     4\tbeta", ""},
				{`{"command":"view","path":"/memories/notes.md","view_range":[0,2]}`, "Error: Invalid `view_range` parameter: [0, 2]. Its first element `0` should be within the range of lines of the file: [1, 4]", "INVALID_ARGUMENT"},
				{`{"command":"view","path":"/memories/notes.md","view_range":[5,6]}`, "Error: Invalid `view_range` parameter: [5, 6]. Its first element `5` should be within the range of lines of the file: [1, 4]", "INVALID_ARGUMENT"},
				{`{"command":"view","path":"/memories/notes.md","view_range":[3,2]}`, "Error: Invalid `view_range` parameter: [3, 2]. Its second element `2` should be -1 (to the end) or at least its first element `3`", "INVALID_ARGUMENT"},
				{`{"command":"view","path":"/memories/notes.md","view_range":[1]}`, "Error: Invalid `view_range` parameter: it should be a list of two integers [start, end], e.g. [1, 20]; end -1 reads to the end", "INVALID_ARGUMENT"},
				{`{"command":"view","path":"/memories/nope.md"}`, "The path /memories/nope.md does not exist. Please provide a valid path.", "NOT_FOUND"},

				// str_replace
				{`{"command":"str_replace","path":"/memories/notes.md","old_str":"beta","new_str":"BETA"}`, "No replacement was performed. Multiple occurrences of old_str `beta` in lines: 2, 4. Please ensure it is unique", "AMBIGUOUS_MATCH"},
				{`{"command":"str_replace","path":"/memories/notes.md","old_str":"delta","new_str":"x"}`, "No replacement was performed, old_str `delta` did not appear verbatim in /memories/notes.md.", "NO_MATCH"},
				{`{"command":"str_replace","path":"/memories/nope.md","old_str":"a","new_str":"b"}`, "Error: The path /memories/nope.md does not exist. Please provide a valid path.", "NOT_FOUND"},
				{`{"command":"str_replace","path":"/memories/projects","old_str":"a","new_str":"b"}`, "Error: The path /memories/projects does not exist. Please provide a valid path.", "NOT_FOUND"},
				{`{"command":"str_replace","path":"/memories/notes.md","old_str":"","new_str":"b"}`, "Error: The `old_str` parameter is required for str_replace and must not be empty; copy the exact text to replace from the file", "INVALID_ARGUMENT"},
				{`{"command":"str_replace","path":"/memories/notes.md","old_str":"gamma","new_str":"GAMMA\nmore"}`, "The memory file has been edited. Here is a snippet of /memories/notes.md with line numbers:\n" +
					"     1\talpha\n     2\tbeta\n     3\tGAMMA\n     4\tmore\n     5\tbeta", ""},
				{`{"command":"str_replace","path":"/memories/notes.md","old_str":"beta\nGAMMA\n"}`, "The memory file has been edited. Here is a snippet of /memories/notes.md with line numbers:\n" +
					"     1\talpha\n     2\tmore\n     3\tbeta", ""},

				// insert
				{`{"command":"insert","path":"/memories/notes.md","insert_line":0,"insert_text":"top"}`, "The file /memories/notes.md has been edited.", ""},
				{`{"command":"insert","path":"/memories/notes.md","insert_line":4,"insert_text":"end\n"}`, "The file /memories/notes.md has been edited.", ""},
				{`{"command":"insert","path":"/memories/notes.md","insert_line":2,"insert_text":"two\nlines"}`, "The file /memories/notes.md has been edited.", ""},
				{`{"command":"insert","path":"/memories/notes.md","insert_line":99,"insert_text":"x"}`, "Error: Invalid `insert_line` parameter: 99. It should be within the range of lines of the file: [0, 7]", "INVALID_ARGUMENT"},
				{`{"command":"insert","path":"/memories/notes.md","insert_line":-1,"insert_text":"x"}`, "Error: Invalid `insert_line` parameter: -1. It should be within the range of lines of the file: [0, 7]", "INVALID_ARGUMENT"},
				{`{"command":"insert","path":"/memories/notes.md","insert_text":"x"}`, "Error: The `insert_line` parameter is required for insert: the line after which to insert the text (0 inserts at the top)", "INVALID_ARGUMENT"},
				{`{"command":"insert","path":"/memories/nope.md","insert_line":0,"insert_text":"x"}`, "Error: The path /memories/nope.md does not exist", "NOT_FOUND"},
				{`{"command":"insert","path":"/memories/projects","insert_line":0,"insert_text":"x"}`, "Error: The path /memories/projects does not exist", "NOT_FOUND"},
				{`{"command":"view","path":"/memories/notes.md"}`, "Here's the content of /memories/notes.md with line numbers:\n" +
					"     1\ttop\n     2\talpha\n     3\ttwo\n     4\tlines\n     5\tmore\n     6\tbeta\n     7\tend", ""},

				// rename
				{`{"command":"rename","old_path":"/memories/notes.md","new_path":"/memories/projects/notes.md"}`, "Successfully renamed /memories/notes.md to /memories/projects/notes.md", ""},
				{`{"command":"rename","old_path":"/memories/projects/notes.md","new_path":"/memories/projects/bot.md"}`, "Error: The destination /memories/projects/bot.md already exists", "ALREADY_EXISTS"},
				{`{"command":"rename","old_path":"/memories/projects/notes.md","new_path":"/memories/projects/deep"}`, "Error: The destination /memories/projects/deep already exists", "ALREADY_EXISTS"},
				{`{"command":"rename","old_path":"/memories/nope.md","new_path":"/memories/new.md"}`, "Error: The path /memories/nope.md does not exist", "NOT_FOUND"},
				{`{"command":"rename","old_path":"/memories/projects","new_path":"/memories/archive/2025"}`, "Successfully renamed /memories/projects to /memories/archive/2025", ""},
				{`{"command":"rename","old_path":"/memories","new_path":"/memories/x"}`, "Error: The /memories directory itself cannot be renamed or replaced; rename the files and directories below it", "PERMISSION_DENIED"},
				{`{"command":"rename","old_path":"/memories/archive","new_path":"/memories/archive/2025"}`, "Error: the destination lies inside the path being moved; choose a destination outside it", "INVALID_ARGUMENT"},
				{`{"command":"rename","old_path":"/memories/archive","new_path":"/memories/archive/inside"}`, "Error: the destination lies inside the path being moved; choose a destination outside it", "INVALID_ARGUMENT"},
				{`{"command":"view","path":"/memories/archive"}`, fmt.Sprintf(listHeader, "/memories/archive") +
					"2.0K\t/memories/archive\n2.0K\t/memories/archive/2025/\n2.0K\t/memories/archive/2025/bot.md\n2B\t/memories/archive/2025/deep/\n34B\t/memories/archive/2025/notes.md", ""},

				// delete
				{`{"command":"delete","path":"/memories/archive/2025/bot.md"}`, "Successfully deleted /memories/archive/2025/bot.md", ""},
				{`{"command":"delete","path":"/memories/archive/2025/bot.md"}`, "Error: The path /memories/archive/2025/bot.md does not exist", "NOT_FOUND"},
				{`{"command":"delete","path":"/memories/archive"}`, "Successfully deleted /memories/archive", ""},
				{`{"command":"delete","path":"/memories"}`, "Error: The /memories directory itself cannot be deleted; delete the files and directories below it", "PERMISSION_DENIED"},
				{`{"command":"delete","path":"/memories/"}`, "Error: The /memories directory itself cannot be deleted; delete the files and directories below it", "PERMISSION_DENIED"},
				{`{"command":"view","path":"/memories"}`, fmt.Sprintf(listHeader, "/memories") + "2B\t/memories", ""},

				// the input itself
				{`{"command":"list","path":"/memories"}`, "Error: Unknown command \"list\"; use view, create, str_replace, insert, delete or rename", "INVALID_ARGUMENT"},
				{`{"path":"/memories"}`, "Error: The `command` parameter is required: view, create, str_replace, insert, delete or rename", "INVALID_ARGUMENT"},
				{`{"command":"view"}`, "Error: The `path` parameter is required for view, e.g. /memories/notes.md", "INVALID_ARGUMENT"},
				{`{"command":"rename","old_path":"/memories/a"}`, "Error: The `new_path` parameter is required for rename, e.g. /memories/notes.md", "INVALID_ARGUMENT"},
				{`["view"]`, "Error: The input is not a memory tool input: it must be a JSON object with a \"command\" and that command's fields", "INVALID_ARGUMENT"},
				{`{"command":"view","path":"/memories","unknown":1}`, fmt.Sprintf(listHeader, "/memories") + "2B\t/memories", ""},
			})
		})
	}
}

// TestTraversal: every spelling of a way out of /memories is refused, by every command.
func TestTraversal(t *testing.T) {
	dots := `"." and ".." are not allowed; write the full path, such as /memories/notes.md`
	tests := []struct {
		path, want string
	}{
		{"/memories/../etc/passwd", "Error: The path /memories/../etc/passwd would escape /memories: " + dots},
		{"/memories/..", "Error: The path /memories/.. would escape /memories: " + dots},
		{"/memories/a/../../b", "Error: The path /memories/a/../../b would escape /memories: " + dots},
		{"/memories/./a", "Error: The path /memories/./a would escape /memories: " + dots},
		{"/memories/%2e%2e/etc", "Error: The path \"/memories/%2e%2e/etc\" would escape /memories: \"\\\" and %-escapes are not allowed; use a path below /memories such as /memories/notes.md"},
		{"/memories/%2E%2E%2Fetc", "Error: The path \"/memories/%2E%2E%2Fetc\" would escape /memories: \"\\\" and %-escapes are not allowed; use a path below /memories such as /memories/notes.md"},
		{"/memories/%252e%252e/x", "Error: The path \"/memories/%252e%252e/x\" would escape /memories: \"\\\" and %-escapes are not allowed; use a path below /memories such as /memories/notes.md"},
		{`/memories\..\etc`, "Error: The path \"/memories\\\\..\\\\etc\" would escape /memories: \"\\\" and %-escapes are not allowed; use a path below /memories such as /memories/notes.md"},
		{`/memories/a\b`, "Error: The path \"/memories/a\\\\b\" would escape /memories: \"\\\" and %-escapes are not allowed; use a path below /memories such as /memories/notes.md"},
		{"/etc/passwd", "Error: The path /etc/passwd is outside /memories; every memory path starts with /memories, such as /memories/notes.md"},
		{"/", "Error: The path / is outside /memories; every memory path starts with /memories, such as /memories/notes.md"},
		{"memories/a.md", "Error: The path memories/a.md is outside /memories; every memory path starts with /memories, such as /memories/notes.md"},
		{"/memoriesx/a.md", "Error: The path /memoriesx/a.md is outside /memories; every memory path starts with /memories, such as /memories/notes.md"},
		{"/memories//etc", "Error: The path /memories//etc is not a valid memory path: path has an empty segment (\"//\"); remove the extra \"/\""},
		{"/memories/a\u200bb", "Error: The path \"/memories/a\\u200bb\" is not a valid memory path: invisible formatting character U+200B at byte 2 is not allowed: a path that looks like another must not be another file"},
		{"/memories/\x00", "Error: The path \"/memories/\\x00\" is not a valid memory path: control character U+0000 at byte 1 is not allowed in a path"},
		{"/memories/" + strings.Repeat("a", 600), "Error: The path is longer than the maximum of 521 bytes; use a shorter path below /memories"},
	}
	mem := newTool(t, services(t)["memstore"])
	for _, tc := range tests {
		p, _ := json.Marshal(tc.path)
		for _, input := range []string{
			`{"command":"view","path":` + string(p) + `}`,
			`{"command":"create","path":` + string(p) + `,"file_text":"x"}`,
			`{"command":"str_replace","path":` + string(p) + `,"old_str":"x","new_str":"y"}`,
			`{"command":"insert","path":` + string(p) + `,"insert_line":0,"insert_text":"x"}`,
			`{"command":"delete","path":` + string(p) + `}`,
			`{"command":"rename","old_path":` + string(p) + `,"new_path":"/memories/ok.md"}`,
			`{"command":"rename","old_path":"/memories/ok.md","new_path":` + string(p) + `}`,
		} {
			res, err := mem.Execute(alice(), json.RawMessage(input))
			if diff := cmp.Diff(memorytool.Result{Content: tc.want, IsError: true}, res); diff != "" || agentfiles.ErrorCode(err) != fileio.CodeInvalidPath {
				t.Errorf("%s: %v (-want +got):\n%s", input, err, diff)
			}
		}
	}
}
