package readmecheck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/google/go-cmp/cmp"
)

// moduleOf returns the root go.mod's go directive line ("go 1.26.0").
func goDirective(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^go [0-9.]+$`).Find(b)
	if line == nil {
		t.Fatal("no go directive in go.mod")
	}
	return string(line)
}

// TestREADMEGoBlocksRun runs every ```go block of README.md as a reader would: pasted as main.go
// into a fresh directory outside the repository, with a go.mod that requires this module (a
// replace directive pointing at this checkout stands in for go get), built offline and run from
// that directory. Each must be gofmt-clean and do what its text says:
//
//   - the main snippet (the one that calls http.Serve) serves the file tools on a free port
//     (ADDR=127.0.0.1:0, so that a server of the reader's own on 8090 does not fail the test): a
//     file written through its JSON API reads back;
//   - a stdio MCP server (mcpsdk.StdioTransport) writes nothing to stdout before its client
//     speaks, and ends when stdin closes;
//   - the PostgreSQL snippets (DATABASE_URL) say what they need when the variable is unset, and
//     the one on a single pool (store.Pool()) runs against a throwaway database, writing a file
//     and finding it, and stops cleanly;
//   - every other one exits 0.
func TestREADMEGoBlocksRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every README block; skipped in -short mode")
	}
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	blocks := goBlocks(t, filepath.Join(root, "README.md"))
	if len(blocks) < 5 {
		t.Fatalf("found %d ```go blocks in README.md; the extractor is broken", len(blocks))
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	goMod := fmt.Sprintf("module example.com/readme\n\n%s\n\nrequire github.com/agentfiles/agentfiles v0.0.0\n\nreplace github.com/agentfiles/agentfiles => %s\n",
		goDirective(t, root), filepath.Clean(root))
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	var pkgs []string
	for i, b := range blocks {
		dir := filepath.Join(tmp, fmt.Sprintf("b%02d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(b.code), 0o644); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, "./"+filepath.Base(dir))
	}
	for _, f := range []struct{ name, text string }{{"go.mod", goMod}, {"go.sum", string(sum)}} {
		if err := os.WriteFile(filepath.Join(tmp, f.name), []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("gofmt", "-l", tmp).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("README blocks not gofmt-clean (%v): %s", err, out)
	}
	bin := filepath.Join(tmp, "bin")
	build := exec.Command("go", append([]string{"build", "-o", bin + string(filepath.Separator)}, pkgs...)...)
	build.Dir, build.Env = tmp, env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the README blocks in a module of their own: %v\n%s", err, out)
	}
	// Each block now runs in its directory, which holds main.go and a go.mod as after go mod init.
	for i, b := range blocks {
		dir := filepath.Join(tmp, fmt.Sprintf("b%02d", i))
		_ = os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/readme\n\n"+goDirective(t, root)+"\n"), 0o644)
		exe := filepath.Join(bin, filepath.Base(dir))
		t.Run(fmt.Sprintf("README.md:%d", b.line), func(t *testing.T) {
			switch {
			case strings.Contains(b.code, "http.Serve("):
				runServer(t, exe, dir)
			case strings.Contains(b.code, "mcpsdk.StdioTransport"):
				stdout, stderr, err := runBlock(t, exe, dir, nil)
				if err != nil || stdout != "" {
					t.Errorf("stdio server: %v; stdout %q (must stay empty for the MCP client); stderr %s", err, stdout, stderr)
				}
			case strings.Contains(b.code, `os.Getenv("DATABASE_URL")`):
				_, stderr, err := runBlock(t, exe, dir, []string{"DATABASE_URL="})
				if err == nil || !strings.Contains(stderr, "set DATABASE_URL") {
					t.Errorf("without DATABASE_URL: %v; stderr %s; want a message saying what to set", err, stderr)
				}
				if strings.Contains(b.code, "store.Pool()") {
					stdout, stderr, err := runBlock(t, exe, dir, []string{"DATABASE_URL=" + pgtest.New(t)})
					if err != nil || !strings.Contains(stdout, "/docs/retry.md") {
						t.Errorf("on a database: %v\nstdout: %s\nstderr: %s\nwant the written file found", err, stdout, stderr)
					}
				}
			default:
				stdout, stderr, err := runBlock(t, exe, dir, []string{"KEY="})
				if err != nil {
					t.Errorf("%v\nstdout: %s\nstderr: %s", err, stdout, stderr)
				}
				t.Logf("stdout:\n%s", stdout)
			}
		})
	}
}

// runBlock runs exe in dir with stdin closed and env added, for at most a minute.
func runBlock(t *testing.T, exe, dir string, env []string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// runServer starts the main snippet, waits for its "serving on" line, writes a file through its
// JSON API with the snippet's token, reads it back, and stops the server.
func runServer(t *testing.T, exe, dir string) {
	t.Helper()
	cmd := exec.Command(exe)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ADDR=127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var seen []string
	var base string
	serving := regexp.MustCompile(`serving on (http://127\.0\.0\.1:[0-9]+)`)
	deadline := time.After(time.Minute)
wait:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("the server exited before serving: %s", strings.Join(seen, "\n"))
			}
			seen = append(seen, line)
			if m := serving.FindStringSubmatch(line); m != nil {
				base = m[1]
				break wait
			}
		case <-deadline:
			t.Fatalf("no \"serving on\" line within a minute: %s", strings.Join(seen, "\n"))
		}
	}
	go func() { // drain the rest so that the server never blocks writing to stderr
		for range lines {
		}
	}()
	call := func(tool, args string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest("POST", base+"/tools/"+tool, strings.NewReader(args))
		req.Header.Set("Authorization", "Bearer s3cret")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var m map[string]any
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &m) != nil {
			t.Fatalf("%s: %s %s", tool, resp.Status, body)
		}
		return m
	}
	call("file_write", `{"project": "demo", "path": "/hello.md", "content": "hello from the README\n"}`)
	got := call("file_read", `{"project": "demo", "path": "/hello.md"}`)
	if diff := cmp.Diff("hello from the README\n", got["content"]); diff != "" {
		t.Errorf("file_read after file_write (-want +got):\n%s", diff)
	}
}

func TestMain(m *testing.M) { pgtest.Main(m) }
