// Package difftest runs a command line two ways and compares the answers: through
// file_shell's Go commands (commands.Lookup) on an in-memory copy of a tree, and through the
// Debian tool of the same name — the oracle — on a disk copy of the same tree, with
// LC_ALL=C, TZ=UTC and fixed modification times.
//
// # What is compared
//
// Standard output byte for byte, the exit status, standard error (exactly when a case asks
// for it, else "non-empty iff the oracle's is"), and for a case that writes, the files and
// directories left behind, byte for byte.
//
// # Running
//
// Run takes a tree (StandardTree is the one the commands' suites use) and a table of cases;
// each case runs as a parallel subtest with its own in-memory copy of the tree, and its own
// disk copy when it writes (the others share one). RunWith swaps the Go side for another
// Runner, so the shell's suite can compare whole command lines (pipes, redirections) with
// bash on the same tree.
//
// # Oracles
//
// The oracle of a case is its argv run by exec on the host's binary (rg gets --sort=path, the
// order ripgrep prints in when it runs on one thread, which the Go rg always uses). A case
// may name another oracle argv (awk programs run by original-awk, say). When the oracle's
// binary is missing the test skips with the Debian package to install, except with
// AGENTFILES_REQUIRE_SERVICES=1, where it fails.
package difftest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/commands"
	"github.com/agentfiles/agentfiles/fileio/shell/internal/memfs"
	"github.com/google/go-cmp/cmp"
)

// Tree is a project's files: relative paths ("src/a.go") to files, and empty directories.
type Tree struct {
	Files map[string]memfs.File
	Dirs  []string
}

// Base is the modification time of directories and the earliest file time of the trees
// this package builds; Now is the time the Go commands see as "now" (touch, ls -l's
// six-month rule): the real time, as the oracle sees it.
var (
	Base = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	Now  = time.Now().UTC().Truncate(time.Second)
)

// Case is one command line.
type Case struct {
	// Name defaults to the argv joined by spaces.
	Name string
	Args []string
	// Stdin, when not "", is piped to the command; else the command has no standard input
	// (the oracle reads /dev/null, the Go command a nil Env.Stdin).
	Stdin string
	// Dir is the working directory, relative to the tree's root ("" for the root).
	Dir string
	// Oracle is the oracle's argv when it is not Args.
	Oracle []string
	// Want, when set, is the expected answer for a command without an oracle.
	Want *Result
	// Writes: the command changes files; compare the trees left behind (each such case
	// gets its own disk copy).
	Writes bool
	// StderrExact compares standard error byte for byte.
	StderrExact bool
	// Unordered compares standard output as a sorted list of lines: the oracle walks
	// directories in their on-disk order (grep -r, find), the Go commands in bytewise
	// name order.
	Unordered bool
	// BlockSizes: the output shows directory sizes or block counts (ls -l, stat), which
	// the Go commands give as a disk of 4 KiB blocks does (ext4); the case skips where the
	// temporary directory's disk is not such a disk (tmpfs).
	BlockSizes bool
}

func (c Case) name() string {
	if c.Name != "" {
		return c.Name
	}
	name := strings.Join(c.Args, " ")
	if c.Stdin != "" {
		name += fmt.Sprintf(" <<< %.20q", c.Stdin)
	}
	if c.Dir != "" {
		name += " in " + c.Dir
	}
	return name
}

// Result is what a command line left.
type Result struct {
	Stdout string
	Stderr string
	Status int
	// Files and Dirs: the tree afterwards (cases that write).
	Files map[string]string
	Dirs  []string
}

// Packages names the Debian package of each oracle binary, for the skip message.
var Packages = map[string]string{
	"rg": "ripgrep", "jq": "jq", "tree": "tree", "gawk": "gawk", "original-awk": "original-awk",
	"mawk": "mawk", "grep": "grep", "sed": "sed", "find": "findutils", "xargs": "findutils",
	"diff": "diffutils",
}

// WriteDisk writes tree under dir, setting the files' times and then every directory's to
// Base.
func WriteDisk(t testing.TB, dir string, tree Tree) {
	t.Helper()
	for _, d := range tree.Dirs {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, f := range tree.Files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(f.Data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(full, f.ModTime, f.ModTime); err != nil {
			t.Fatal(err)
		}
	}
	var dirs []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		if err := os.Chtimes(d, Base, Base); err != nil {
			t.Fatal(err)
		}
	}
}

// ReadDisk returns the files and directories under dir, as Result.Files and Result.Dirs.
func ReadDisk(t testing.TB, dir string) (map[string]string, []string) {
	t.Helper()
	files := map[string]string{}
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			dirs = append(dirs, rel)
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	return files, dirs
}

// MemFS returns an in-memory copy of tree.
func MemFS(tree Tree) *memfs.FS {
	files := make(map[string]memfs.File, len(tree.Files))
	for p, f := range tree.Files {
		files["/"+p] = f
	}
	m := memfs.New(files)
	m.DirTime = Base
	for _, d := range tree.Dirs {
		m.AddDir("/" + d)
	}
	return m
}

// Oracle runs argv on the disk copy at root, with stdin (none when "").
func Oracle(t testing.TB, root string, c Case) Result {
	t.Helper()
	argv := c.Args
	if c.Oracle != nil {
		argv = c.Oracle
	} else if len(argv) > 0 && argv[0] == "rg" {
		argv = append([]string{"rg", "--sort=path"}, argv[1:]...)
	}
	bin, err := exec.LookPath(argv[0])
	if err != nil {
		pkg := Packages[argv[0]]
		if pkg == "" {
			pkg = "coreutils"
		}
		msg := fmt.Sprintf("oracle %s not installed (apt-get install %s)", argv[0], pkg)
		if os.Getenv("AGENTFILES_REQUIRE_SERVICES") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, argv[1:]...)
	cmd.Args[0] = argv[0] // diagnostics name the command as typed
	cmd.Dir = filepath.Join(root, filepath.FromSlash(c.Dir))
	cmd.Env = []string{"LC_ALL=C", "TZ=UTC", "PATH=/usr/bin:/bin", "HOME=" + root}
	if c.Stdin != "" {
		cmd.Stdin = strings.NewReader(c.Stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	status := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("oracle %v: %v", argv, err)
		}
		status = ee.ExitCode()
	}
	return Result{Stdout: out.String(), Stderr: errb.String(), Status: status}
}

// Exec runs a command line's command through commands.Lookup, as the shell would for
// xargs and find -exec (bash's message and 127 for a name without a command).
func Exec(fsys commands.FS, dir string) func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var run func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
	run = func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		f := commands.Lookup(args[0])
		if args[0] == "echo" {
			f = echo
		}
		if f == nil {
			fmt.Fprintf(stderr, "bash: %s: command not found\n", args[0])
			return 127
		}
		env := &commands.Env{Dir: dir, Stdin: stdin, Stdout: stdout, Stderr: stderr, FS: fsys,
			Now: func() time.Time { return Now }}
		env.Exec = run
		return f(ctx, env, args)
	}
	return run
}

// Ours runs the case's argv through commands.Lookup on fsys.
func Ours(t testing.TB, fsys *memfs.FS, c Case) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := "/" + c.Dir
	var out, errb bytes.Buffer
	var stdin io.Reader
	if c.Stdin != "" {
		stdin = strings.NewReader(c.Stdin)
	}
	status := Exec(fsys, path.Clean(dir))(ctx, c.Args, stdin, &out, &errb)
	return Result{Stdout: out.String(), Stderr: errb.String(), Status: status}
}

// Runner runs a case's command line the Go way on fsys (a fresh copy of the tree) and
// returns what it printed and its status. Ours is the Runner of single commands; the shell
// passes one that runs whole command lines through file_shell.
type Runner func(t testing.TB, fsys *memfs.FS, c Case) Result

// Run runs each case through commands.Lookup and through the oracle and reports every
// difference.
func Run(t *testing.T, tree Tree, cases []Case) {
	t.Helper()
	RunWith(t, tree, cases, Ours)
}

// RunWith is Run with another way to run the Go side (a whole command line through the
// shell, say: give such cases an Oracle of []string{"bash", "-c", line}).
func RunWith(t *testing.T, tree Tree, cases []Case, ours Runner) {
	t.Helper()
	shared := t.TempDir()
	WriteDisk(t, shared, tree)
	seen := map[string]bool{}
	for _, c := range cases {
		name := c.name()
		if seen[name] {
			t.Fatalf("two cases named %q", name)
		}
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			// Cases are independent (each has its own in-memory tree, and its own disk copy
			// when it writes): run them side by side, the oracles' process starts overlap.
			t.Parallel()
			check(t, tree, shared, c, ours)
		})
	}
}

// Check runs one case (on the disk copy at shared when it does not write) and compares.
func Check(t *testing.T, tree Tree, shared string, c Case) {
	t.Helper()
	check(t, tree, shared, c, Ours)
}

func check(t *testing.T, tree Tree, shared string, c Case, ours Runner) {
	t.Helper()
	if c.BlockSizes {
		if fi, err := os.Stat(shared); err == nil && fi.Size() != 4096 {
			t.Skipf("the temporary directory's disk gives directories %d bytes, not 4096 (4 KiB blocks, ext4)", fi.Size())
		}
	}
	fsys := MemFS(tree)
	got := ours(t, fsys, c)
	var want Result
	if c.Want != nil {
		want = *c.Want
	} else {
		root := shared
		if c.Writes {
			root = t.TempDir()
			WriteDisk(t, root, tree)
		}
		want = Oracle(t, root, c)
		if c.Writes {
			want.Files, want.Dirs = ReadDisk(t, root)
		}
	}
	if c.Writes {
		got.Files = map[string]string{}
		for p, f := range fsys.Files() {
			got.Files[p[1:]] = f.Data
		}
		for _, d := range fsys.Dirs() {
			got.Dirs = append(got.Dirs, d[1:])
		}
	}
	if c.Unordered {
		want.Stdout, got.Stdout = sortedLines(want.Stdout), sortedLines(got.Stdout)
	}
	if d := cmp.Diff(want.Stdout, got.Stdout); d != "" {
		t.Errorf("stdout (-oracle +ours):\n%s", d)
	}
	if want.Status != got.Status {
		t.Errorf("exit status: oracle %d, ours %d (stderr oracle %q, ours %q)", want.Status, got.Status, want.Stderr, got.Stderr)
	}
	if c.StderrExact {
		if d := cmp.Diff(want.Stderr, got.Stderr); d != "" {
			t.Errorf("stderr (-oracle +ours):\n%s", d)
		}
	} else if (want.Stderr == "") != (got.Stderr == "") {
		t.Errorf("stderr: oracle %q, ours %q", want.Stderr, got.Stderr)
	}
	if c.Writes {
		if d := cmp.Diff(want.Files, got.Files); d != "" {
			t.Errorf("files left (-oracle +ours):\n%s", d)
		}
		if d := cmp.Diff(want.Dirs, got.Dirs); d != "" {
			t.Errorf("directories left (-oracle +ours):\n%s", d)
		}
	}
}

func sortedLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	sort.Strings(lines)
	return strings.Join(lines, "")
}

// echo stands in for the interpreter's builtin, which find -exec and xargs reach through
// the shell's Exec.
func echo(_ context.Context, env *commands.Env, args []string) int {
	newline := true
	args = args[1:]
	if len(args) > 0 && args[0] == "-n" {
		newline, args = false, args[1:]
	}
	s := strings.Join(args, " ")
	if newline {
		s += "\n"
	}
	io.WriteString(env.Stdout, s)
	return 0
}
