package commands_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/commands"
	"github.com/agentfiles/agentfiles/fileio/shell/internal/difftest"
	"github.com/agentfiles/agentfiles/fileio/shell/internal/memfs"
	"github.com/google/go-cmp/cmp"
)

// endless is an input that never ends; it counts what was read from it.
type endless struct{ read atomic.Int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "line of text\n"[i%13]
	}
	e.read.Add(int64(len(p)))
	return len(p), nil
}

func run(ctx context.Context, fsys commands.FS, stdin io.Reader, stdout io.Writer, args ...string) (int, string) {
	var errb bytes.Buffer
	env := &commands.Env{Dir: "/", Stdin: stdin, Stdout: stdout, Stderr: &errb, FS: fsys}
	env.Exec = difftest.Exec(fsys, "/")
	return commands.Lookup(args[0])(ctx, env, args), errb.String()
}

// TestHeadReadsOnlyWhatItNeeds: head on an endless input stops after its lines.
func TestHeadReadsOnlyWhatItNeeds(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"head", "-n", "3"}, {"head", "-c", "100"}, {"sed", "-n", "2p;3q"}, {"grep", "-m", "2", "line"},
		{"grep", "-q", "text"}, {"grep", "-l", "of"}, {"rg", "-m", "1", "line"}, {"rg", "-q", "text"}, {"awk", "NR==3 { exit }"},
		{"cat"}} {
		in := &endless{}
		var out bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if args[0] == "cat" {
			// cat copies until its reader stops: here the output does.
			status, _ := run(ctx, memfs.New(nil), in, &failingWriter{n: 1 << 16}, args...)
			cancel()
			if status == 0 || in.read.Load() > 1<<20 {
				t.Errorf("cat: status %d after reading %d bytes; want a failure within 1 MiB", status, in.read.Load())
			}
			continue
		}
		status, _ := run(ctx, memfs.New(nil), in, &out, args...)
		cancel()
		if status != 0 {
			t.Errorf("%v: status %d", args, status)
		}
		if n := in.read.Load(); n > 1<<20 {
			t.Errorf("%v read %d bytes of an endless input; want at most 1 MiB", args, n)
		}
	}
}

// TestCommandsStopWhenTheContextEnds: commands that would run forever end soon after
// their context does.
func TestCommandsStopWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	fsys := difftest.MemFS(difftest.StandardTree())
	cases := []struct {
		args  []string
		stdin bool
	}{
		{args: []string{"yes"}},
		{args: []string{"cat"}, stdin: true},
		{args: []string{"tr", "a", "b"}, stdin: true},
		{args: []string{"sed", "p"}, stdin: true},
		{args: []string{"sed", ":a;ba"}, stdin: true},
		{args: []string{"sed", "-n", ":a;s/x*/x/;ta"}, stdin: true},
		{args: []string{"seq", "1", "1000000000000"}},
		{args: []string{"awk", "BEGIN { while (1) n++ }"}},
		{args: []string{"jq", "-n", "repeat(1)"}},
		{args: []string{"jq", "-n", "[range(1e12)] | length"}},
		{args: []string{"sleep", "3600"}},
		{args: []string{"uniq"}, stdin: true},
		{args: []string{"wc", "-l"}, stdin: true},
		{args: []string{"xargs", "echo"}, stdin: true},
		{args: []string{"sort"}, stdin: true},
		{args: []string{"tee"}, stdin: true},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			var stdin io.Reader
			if c.stdin {
				stdin = &endless{}
			}
			done := make(chan int, 1)
			go func() {
				status, _ := run(ctx, fsys, stdin, io.Discard, c.args...)
				done <- status
			}()
			select {
			case status := <-done:
				if status == 0 {
					t.Errorf("status 0 after the context ended; want non-zero")
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("still running 60 s after its context ended")
			}
		})
	}
}

// failingWriter fails every write after the first n bytes, as a closed pipe or a reached
// output cap does.
type failingWriter struct {
	n       int
	written int
	calls   int
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.calls++
	if w.written+len(p) > w.n {
		return 0, errors.New("output closed")
	}
	w.written += len(p)
	return len(p), nil
}

// TestOutputFailureEndsTheCommand: a write that fails ends the command with a non-zero
// status, without trying to write everything else.
func TestOutputFailureEndsTheCommand(t *testing.T) {
	t.Parallel()
	fsys := difftest.MemFS(difftest.StandardTree())
	for _, args := range [][]string{
		{"yes"}, {"seq", "1", "100000000"}, {"cat", "big.txt", "big.txt"}, {"grep", "-r", "a", "."},
		{"rg", "a"}, {"sed", "p", "big.txt"}, {"find", "."}, {"awk", "BEGIN { while (1) print \"x\" }"},
		{"jq", "-n", "range(1e9)"}, {"ls", "-R"}, {"tree"}, {"nl", "-ba", "big.txt"}, {"cut", "-c1-3", "big.txt"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			w := &failingWriter{n: 100}
			status, _ := run(ctx, fsys, nil, w, args...)
			if status == 0 {
				t.Errorf("status 0 after stdout failed")
			}
			if ctx.Err() != nil {
				t.Errorf("ran until its context ended")
			}
			if w.calls > 100 {
				t.Errorf("%d writes after stdout failed; want it to stop at the first failure", w.calls)
			}
		})
	}
}

// countingFS counts the files read through it.
type countingFS struct {
	commands.FS
	reads map[string]int
}

func (c *countingFS) ReadFile(ctx context.Context, name string) ([]byte, error) {
	c.reads[name]++
	return c.FS.ReadFile(ctx, name)
}

// fakeSearcher answers a fixed candidate list, as the project's grep engine would.
type fakeSearcher struct {
	paths    []string
	complete bool
	calls    []string
}

func (f *fakeSearcher) Candidates(_ context.Context, dir, re string, ignoreCase bool) ([]string, bool, error) {
	f.calls = append(f.calls, fmt.Sprintf("%s %s %v", dir, re, ignoreCase))
	return f.paths, f.complete, nil
}

// TestSearcherNarrowsTheFilesRead: with Env.Search, rg and grep -r read only the
// candidates (and the ignore files); when the engine cannot decide, every file.
func TestSearcherNarrowsTheFilesRead(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args     []string
		complete bool
		want     string
	}{
		{[]string{"rg", "-n", "foo"}, true, "docs/notes.txt:3:foo\n"},
		{[]string{"grep", "-rn", "foo", "docs"}, true, "docs/notes.txt:3:foo\n"},
		{[]string{"rg", "-n", "foo", "docs"}, false, "docs/deep/er/file.txt:1:deep foo\ndocs/guide.md:10:foo Foo FOO fooBar\ndocs/notes.txt:3:foo\n"},
	} {
		fsys := &countingFS{FS: difftest.MemFS(difftest.StandardTree()), reads: map[string]int{}}
		search := &fakeSearcher{paths: []string{"/docs/notes.txt"}, complete: c.complete}
		var out, errb bytes.Buffer
		env := &commands.Env{Dir: "/", Stdout: &out, Stderr: &errb, FS: fsys, Search: search}
		status := commands.Lookup(c.args[0])(context.Background(), env, c.args)
		if status != 0 || errb.Len() > 0 {
			t.Errorf("%v: status %d, stderr %q", c.args, status, errb.String())
		}
		if c.complete {
			if d := cmp.Diff(c.want, out.String()); d != "" {
				t.Errorf("%v: stdout (-want +got):\n%s", c.args, d)
			}
			for name := range fsys.reads {
				if name != "/docs/notes.txt" && !strings.Contains(name, "ignore") {
					t.Errorf("%v read %s, which the engine did not name", c.args, name)
				}
			}
		} else if !strings.HasSuffix(out.String(), c.want[strings.LastIndex(c.want[:len(c.want)-1], "\n")+1:]) || fsys.reads["/docs/guide.md"] == 0 {
			t.Errorf("%v with an incomplete answer: read %v, printed %q; want every file read", c.args, fsys.reads, out.String())
		}
		if len(search.calls) != 1 {
			t.Errorf("%v: %d calls to the engine, want 1 (%v)", c.args, len(search.calls), search.calls)
		}
	}
}

// TestNamesAreSorted: the registry lists every command once, in order.
func TestNamesAreSorted(t *testing.T) {
	names := commands.Names()
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Fatalf("Names() not sorted at %q, %q", names[i-1], names[i])
		}
	}
	for _, want := range []string{"apply_patch", "awk", "cat", "cp", "diff", "find", "grep", "head", "jq", "ls", "mkdir", "mv", "nl", "rg", "rm", "sed", "sha256sum", "sort", "tail", "tee", "touch", "tr", "tree", "uniq", "wc", "xargs"} {
		if commands.Lookup(want) == nil {
			t.Errorf("Lookup(%q) = nil", want)
		}
	}
	if commands.Lookup("bash") != nil || commands.Lookup("curl") != nil {
		t.Errorf("Lookup offers a command that reaches the host")
	}
}
