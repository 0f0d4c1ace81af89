package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// buildServer compiles this command into a temporary directory.
func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "docs-server")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

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
		dir := filepath.Join(base, name)
		for rel, body := range tree[name] {
			p := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

func dirArgs(dirs []string) []string {
	var args []string
	for _, d := range dirs {
		args = append(args, "-dir", d)
	}
	return args
}

// connect starts an MCP client session over transport; it closes when the test ends.
func connect(t *testing.T, transport mcp.Transport) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "docs-server-test"}, nil).Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// exercise lists the tools and calls each one, checking the answers.
func exercise(t *testing.T, cs *mcp.ClientSession, dirs []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range listed.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "list_documentation_files,read_sections,search,table_of_contents" &&
		strings.Join(names, ",") != "list_documentation_files,table_of_contents,read_sections,search" {
		t.Fatalf("tools: %v", names)
	}

	callJSON := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			t.Fatalf("%s: tool error %s", name, text)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			t.Fatalf("%s: %v in %s", name, err, text)
		}
		return out
	}

	list := callJSON("list_documentation_files", map[string]any{})
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
		t.Errorf("sourceDirectory %v, want the -dir path as given %s", src, dirs[0])
	}

	toc := callJSON("table_of_contents", map[string]any{"fileId": "f2"})
	if toc["fileId"] != "f2" || toc["filename"] != "guide.md" || len(toc["toc"].([]any)) != 2 {
		t.Errorf("table_of_contents: %v", toc)
	}
	secs := callJSON("read_sections", map[string]any{"fileId": "f1", "section_ids": []string{"1/1"}})
	if c := secs["sections"].([]any)[0].(map[string]any)["content"]; c != "## Flags\n\nUse -addr to set the listen address.\n" {
		t.Errorf("read_sections content %q", c)
	}
	found := callJSON("search", map[string]any{"query": "readme", "caseInsensitive": true})
	if n := found["matchCount"]; n != 3.0 {
		t.Errorf("search matchCount %v: %v", n, found)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_sections", Arguments: map[string]any{"fileId": "f8", "section_ids": []string{"1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "FILE_ID_NOT_FOUND") {
		t.Errorf("unknown file ID: %+v", res.Content)
	}
}

func TestStdio(t *testing.T) {
	bin := buildServer(t)
	dirs := docsDirs(t)
	exercise(t, connect(t, &mcp.CommandTransport{Command: exec.Command(bin, dirArgs(dirs)...)}), dirs)
}

func TestStreamableHTTP(t *testing.T) {
	bin := buildServer(t)
	dirs := docsDirs(t)
	cmd := exec.Command(bin, append(dirArgs(dirs), "-http", "127.0.0.1:0", "-max-toc-depth", "2")...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})

	// The server prints its URL once it listens; wait for that line with a deadline.
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`http://\S+/mcp`)
		for sc.Scan() {
			if u := re.FindString(sc.Text()); u != "" {
				urls <- u
			}
		}
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(30 * time.Second):
		t.Fatal("server did not report its address")
	}

	exercise(t, connect(t, &mcp.StreamableClientTransport{Endpoint: url}), dirs)
}

// TestLinksOnlyFileid: the server links fileid and the adapters it needs, and no other tool
// family, database driver, stemmer or glob library.
func TestLinksOnlyFileid(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	allowed := map[string]bool{}
	for _, p := range []string{"", "/adapters", "/adapters/fileidtools", "/adapters/mcpsdk", "/fileid", "/examples/docs-server"} {
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
	if err := run(context.Background(), nil, &sb); err == nil || !strings.Contains(err.Error(), "-dir") {
		t.Errorf("no -dir: %v", err)
	}
	if err := run(context.Background(), []string{"-dir", filepath.Join(t.TempDir(), "missing")}, &sb); err == nil || !strings.Contains(err.Error(), "INVALID_ROOT") {
		t.Errorf("missing dir: %v", err)
	}
	if err := run(context.Background(), []string{"-dir", t.TempDir(), "-include", "[x"}, &sb); err == nil || !strings.Contains(err.Error(), "INVALID_ARGUMENT") {
		t.Errorf("bad include: %v", err)
	}
}
