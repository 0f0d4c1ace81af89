package shell_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/shell"
	"github.com/google/go-cmp/cmp"
)

// newShell returns a shell over a fresh memstore and a context of a fresh tenant.
func newShell(t *testing.T, mutate ...func(*fileio.Config)) (*shell.Shell, *fileio.Service, context.Context) {
	t.Helper()
	cfg := fileio.DefaultConfig()
	cfg.RateLimitPerSecond = 0
	for _, m := range mutate {
		m(&cfg)
	}
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("key-"+t.Name(), "test"))
	return shell.New(svc, shell.Options{}), svc, ctx
}

func write(t *testing.T, svc *fileio.Service, ctx context.Context, project, path, content string) {
	t.Helper()
	if _, err := svc.Write(ctx, fileio.WriteRequest{Project: project, Path: path, Content: content, Mode: fileio.ModeTruncate}); err != nil {
		t.Fatal(err)
	}
}

func TestRunLanguage(t *testing.T) {
	sh, svc, ctx := newShell(t)
	write(t, svc, ctx, "p", "/src/a.txt", "alpha\nbeta\n")
	write(t, svc, ctx, "p", "/src/b.txt", "gamma\n")
	tests := []struct {
		name, cmd, stdout string
		exit              int
	}{
		{"echo", "echo hi", "hi\n", 0},
		{"pipe", "cat src/a.txt | cat", "alpha\nbeta\n", 0},
		{"andor", "false && echo no || echo yes", "yes\n", 0},
		{"redirect and read back", "echo x > /out.txt; cat /out.txt", "x\n", 0},
		{"append", "echo 1 > o; echo 2 >> o; cat o", "1\n2\n", 0},
		{"stderr to null", "cat missing 2>/dev/null; echo $?", "1\n", 0},
		{"2>&1", "cat missing 2>&1", "cat: missing: No such file or directory\n", 1},
		{"heredoc", "cat <<'EOF'\n$HOME\nEOF", "$HOME\n", 0},
		{"herestring", "cat <<< \"a b\"", "a b\n", 0},
		{"cmdsubst", "x=$(cat src/b.txt); echo \"[$x]\"", "[gamma]\n", 0},
		{"procsubst", "cat <(echo one) <(echo two)", "one\ntwo\n", 0},
		{"procsubst redirect", "cat < <(echo three)", "three\n", 0},
		{"arith", "echo $((6*7))", "42\n", 0},
		{"for glob", "for f in src/*; do echo $f; done", "src/a.txt\nsrc/b.txt\n", 0},
		{"while read", "while read l; do echo \"<$l>\"; done < src/a.txt", "<alpha>\n<beta>\n", 0},
		{"case", "case foo in f*) echo F;; *) echo other;; esac", "F\n", 0},
		{"function", "f() { echo \"f:$1\"; }; f z", "f:z\n", 0},
		{"cd pwd", "cd src && pwd && cd .. && cd .. && pwd", "/src\n/\n", 0},
		{"env", "echo $HOME $PATH $LC_ALL; echo ${TMPDIR-unset}", "/ /usr/bin:/bin C\nunset\n", 0},
		{"not found", "nosuchcmd", "", 127},
		{"host binary by path", "/usr/bin/python3 -c 1", "", 127},
		{"exit status", "exit 3", "", 3},
		{"test", "[ -f src/a.txt ] && [ -d src ] && [ ! -e nope ] && echo ok", "ok\n", 0},
		{"command -v", "command -v cat echo nosuch; echo $?", "/usr/bin/cat\necho\n1\n", 0},
		{"type", "type echo cat", "echo is a shell builtin\ncat is /usr/bin/cat\n", 0},
		{"xargs builtin", "echo a b | xargs echo x", "x a b\n", 0},
		{"dev stdin", "echo in | cat /dev/stdin", "in\n", 0},
		{"background runs in place", "echo a & wait; echo b", "a\nb\n", 0},
		{"source", "echo 'v=7' > lib.sh; source lib.sh; echo $v", "7\n", 0},
		{"bash -c", "bash -c 'echo $0 $1' x y", "x y\n", 0},
		{"dollar zero", "echo $0", "bash\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := sh.Run(ctx, shell.Request{Project: "p", Command: tt.cmd})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.stdout, res.Stdout); diff != "" {
				t.Errorf("stdout (-want +got):\n%s\nstderr: %s", diff, res.Stderr)
			}
			if res.ExitCode != tt.exit {
				t.Errorf("exit %d, want %d; stderr %q", res.ExitCode, tt.exit, res.Stderr)
			}
		})
	}
}

func TestSearcherCandidates(t *testing.T) {
	sh, svc, ctx := newShell(t)
	write(t, svc, ctx, "p", "/a/hit.txt", "a needle here\n")
	write(t, svc, ctx, "p", "/a/miss.txt", "nothing\n")
	write(t, svc, ctx, "p", "/a/gone.txt", "needle too\n")
	write(t, svc, ctx, "p", "/b/hit.txt", "needle\n")
	res, err := sh.Run(ctx, shell.Request{Project: "p", Command: "echo new > /a/new.txt; rm /a/gone.txt; candidates /a 'need[l]e'"})
	if err != nil {
		t.Fatal(err)
	}
	// memstore filters by the pattern's literal; files the command wrote are always candidates.
	if diff := cmp.Diff("/a/hit.txt\n/a/new.txt\ncomplete: true\n", res.Stdout); diff != "" {
		t.Errorf("candidates (-want +got):\n%s\nstderr %s", diff, res.Stderr)
	}
}

func TestWorkdir(t *testing.T) {
	sh, svc, ctx := newShell(t)
	write(t, svc, ctx, "p", "/src/a.txt", "a\n")
	for _, tt := range []struct {
		workdir, stdout string
		code            agentfiles.Code
	}{
		{"", "/\n", agentfiles.Code{}},
		{"/", "/\n", agentfiles.Code{}},
		{"/src", "/src\n", agentfiles.Code{}},
		{"src/", "/src\n", agentfiles.Code{}},
		{"/missing", "", agentfiles.CodeNotFound},
		{"/src/a.txt", "", fileio.CodeNotDirectory},
		{"/a\x00b", "", fileio.CodeInvalidPath},
	} {
		res, err := sh.Run(ctx, shell.Request{Project: "p", Command: "pwd", Workdir: tt.workdir})
		if agentfiles.ErrorCode(err) != tt.code && !(err == nil && tt.code == (agentfiles.Code{})) {
			t.Errorf("workdir %q: %v, want %v", tt.workdir, err, tt.code)
		}
		if err == nil && res.Stdout != tt.stdout {
			t.Errorf("workdir %q: pwd %q", tt.workdir, res.Stdout)
		}
	}
}

// TestSearchReadsAhead reads more candidates than several read-ahead windows hold, with files
// the command wrote and removed among them.
func TestSearchReadsAhead(t *testing.T) {
	sh, svc, ctx := newShell(t)
	for i := range 700 {
		write(t, svc, ctx, "p", fmt.Sprintf("/d/f%03d.txt", i), fmt.Sprintf("file %d holds a needle\n", i))
	}
	write(t, svc, ctx, "p", "/d/other.txt", "nothing here\n")
	res, err := sh.Run(ctx, shell.Request{Project: "p", Command: "echo 'a new needle' > /d/new.txt; rm /d/f005.txt; search-read /d needle"})
	if err != nil {
		t.Fatal(err)
	}
	// 699 files of the snapshot and the new one; memstore leaves out the file without the word.
	bytes := len("a new needle\n")
	for i := range 700 {
		if i != 5 {
			bytes += len(fmt.Sprintf("file %d holds a needle\n", i))
		}
	}
	if want := fmt.Sprintf("700 %d 700\n", bytes); res.Stdout != want {
		t.Errorf("search-read printed %q (stderr %q)", res.Stdout, res.Stderr)
	}
}

// TestEmptyDirectories: a directory made by mkdir lives while the command runs; one still
// empty at the end is dropped, and the note says so.
func TestEmptyDirectories(t *testing.T) {
	sh, svc, ctx := newShell(t)
	res, err := sh.Run(ctx, shell.Request{Project: "p", Command: "mkdir -p /a/b /kept; echo x > /kept/f; [ -d /a/b ] && echo exists; cd /a/b && pwd"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "exists\n/a/b\n" || !strings.Contains(res.Note, "/a was dropped") || strings.Contains(res.Note, "/kept") {
		t.Errorf("stdout %q, note %q", res.Stdout, res.Note)
	}
	if st, _ := svc.Stat(ctx, fileio.StatRequest{Project: "p", Path: "/a"}); st.Exists {
		t.Errorf("/a exists after the command")
	}
}
