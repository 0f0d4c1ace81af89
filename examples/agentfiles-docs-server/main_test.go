package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/examples/internal/mcpcmd"
	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// docsDirs writes the seed's example tree (/primary, /secondary, /fallback) to real directories.
func docsDirs(t *testing.T) []string {
	t.Helper()
	base := t.TempDir()
	tree := map[string]map[string]string{
		"primary": {
			"config.md":        "# Configuration\n\n## Flags\n\nUse -addr to set the listen address.\n",
			"guide.md":         "---\ntitle: User Guide\n---\n# Install\n\n```sh\n# not a heading\n```\n\n## Linux\n\napt install tool\n",
			"README.md":        "# Primary README\n",
			"subdir/README.md": "# Subdir README\n",
			".hidden.md":       "# hidden\n",
		},
		"secondary": {"README.md": "# Secondary README\n", "utils.md": "# Utils\n"},
		"fallback":  {"index.md": "# Index\n"},
	}
	var dirs []string
	for _, name := range []string{"primary", "secondary", "fallback"} {
		dirs = append(dirs, testfiles.Write(t, filepath.Join(base, name), tree[name]))
	}
	return dirs
}

func dirArgs(dirs []string) []string {
	var args []string
	for _, d := range dirs {
		args = append(args, "-docs", d)
	}
	return args
}

// exercise lists the tools and calls each one, checking the answers.
func exercise(t *testing.T, cs *mcp.ClientSession, dirs []string) {
	t.Helper()
	if names := mcptest.ToolNames(t, cs); strings.Join(names, ",") != "list_documentation_files,read_sections,search,table_of_contents" {
		t.Fatalf("tools: %v", names)
	}

	list := mcptest.MustCall(t, cs, "list_documentation_files", map[string]any{})
	var got []string
	for _, f := range list["files"].([]any) {
		m := f.(map[string]any)
		got = append(got, m["fileId"].(string)+"="+filepath.Base(m["sourceDirectory"].(string))+"/"+m["filename"].(string))
	}
	want := "f1=primary/config.md f2=primary/guide.md f3=primary/README.md f4=primary/subdir/README.md " +
		"f5=secondary/README.md f6=secondary/utils.md f7=fallback/index.md"
	if strings.Join(got, " ") != want {
		t.Errorf("listing:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if src := list["files"].([]any)[0].(map[string]any)["sourceDirectory"]; src != dirs[0] {
		t.Errorf("sourceDirectory %v, want the -docs path as given %s", src, dirs[0])
	}

	toc := mcptest.MustCall(t, cs, "table_of_contents", map[string]any{"fileId": "f2"})
	if toc["fileId"] != "f2" || toc["filename"] != "guide.md" || len(toc["toc"].([]any)) != 2 {
		t.Errorf("table_of_contents: %v", toc)
	}
	secs := mcptest.MustCall(t, cs, "read_sections", map[string]any{"fileId": "f1", "section_ids": []string{"1/1"}})
	if c := secs["sections"].([]any)[0].(map[string]any)["content"]; c != "## Flags\n\nUse -addr to set the listen address.\n" {
		t.Errorf("read_sections content %q", c)
	}
	found := mcptest.MustCall(t, cs, "search", map[string]any{"query": "readme", "case_insensitive": true})
	if n := found["match_count"]; n != 3.0 {
		t.Errorf("search match_count %v: %v", n, found)
	}

	if out, ok := mcptest.Call(t, cs, "read_sections", map[string]any{"fileId": "f8", "section_ids": []string{"1"}}); ok || out["code"] != "FILE_ID_NOT_FOUND" {
		t.Errorf("unknown file ID: ok %v %v", ok, out)
	}
}

func TestStdio(t *testing.T) {
	dirs := docsDirs(t)
	exercise(t, mcptest.ConnectCommand(t, cmdtest.Build(t, "."), dirArgs(dirs)...), dirs)
}

func TestStreamableHTTP(t *testing.T) {
	dirs := docsDirs(t)
	server := cmdtest.Start(t, cmdtest.Build(t, "."), append(dirArgs(dirs), "-addr", "127.0.0.1:0", "-max-toc-depth", "2")...)
	// The server prints its URL once it listens.
	url := server.WaitFor(t, regexp.MustCompile(`http://\S+/mcp`))
	exercise(t, mcptest.ConnectHTTP(t, url, ""), dirs)
}

// TestLinksOnlyFileid: the server links fileid and the adapters it needs, and no other tool
// family, database driver, stemmer or glob library.
func TestLinksOnlyFileid(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	allowed := map[string]bool{}
	for _, p := range []string{"", "/adapters", "/adapters/fileidtools", "/adapters/mcpsdk", "/fileid", "/examples/agentfiles-docs-server", "/examples/internal/mcpcmd",
		"/internal/utf8cut",    // the adapters' cutting of long values for errors and logs
		"/internal/redact",     // the adapters' redaction of credentials in log previews
		"/internal/keyedslots", // mcpsdk.GuardHTTP's per-caller request slots
	} {
		allowed["github.com/agentfiles/agentfiles"+p] = true
	}
	forbidden := regexp.MustCompile(`pgx|redis|snowball|gobwas/glob`)
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/agentfiles/agentfiles") && !allowed[pkg] || forbidden.MatchString(pkg) {
			t.Errorf("docs-server links %s", pkg)
		}
	}
}

func TestFlagErrors(t *testing.T) {
	var sb strings.Builder
	// Without -docs: a short error that says what to pass, and no usage dump before it.
	err := run(context.Background(), mcpcmd.New("agentfiles-docs-server", &sb), nil)
	if diff := cmp.Diff("no -docs directory given: name the Markdown directory to serve, e.g. -docs ./docs (repeatable; see -h)", fmt.Sprint(err)); diff != "" || sb.Len() != 0 {
		t.Errorf("no -docs (-want +got):\n%s\nstderr: %q", diff, sb.String())
	}
	if err := run(context.Background(), mcpcmd.New("agentfiles-docs-server", &sb), []string{"-docs", filepath.Join(t.TempDir(), "missing")}); err == nil || !strings.Contains(err.Error(), "INVALID_ROOT") {
		t.Errorf("missing dir: %v", err)
	}
	if err := run(context.Background(), mcpcmd.New("agentfiles-docs-server", &sb), []string{"-docs", t.TempDir(), "-include", "[x"}); err == nil || !strings.Contains(err.Error(), "INVALID_ARGUMENT") {
		t.Errorf("bad include: %v", err)
	}
}
