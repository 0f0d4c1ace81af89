package shell

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	mathrand "math/rand/v2"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/shell/internal/commands"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// maxFrames bounds the Go call stack of one goroutine of a command: a shell function that
// calls itself endlessly would otherwise grow it until the process dies (Go stacks may reach
// 1 GB). About 8-10 frames make one level of shell calls, so this allows several hundred.
const maxFrames = 6000

// stopGrace is how long Run waits for a stopped command's goroutines to wind down before it
// answers anyway (their writes are refused from then on).
const stopGrace = 2 * time.Second

// run is one command being run.
type run struct {
	sh      *Shell
	ctx     context.Context // the command's budget
	cancel  context.CancelFunc
	parent  context.Context // the caller's
	sn      *fileio.Snapshot
	overlay *overlay
	file    *syntax.File
	dir     string // the starting directory
	tmp     string // the interpreter's FIFO directory, which does not exist (see rewrite)
	out     *output
	search  *searcher

	lookupName  string          // the internal command type, command -v and hash become
	captureName string          // the internal command that keeps the output of <(…)
	funcs       map[string]bool // the functions the script declares

	steps atomic.Int64

	mu        sync.Mutex
	stopped   error             // the budget a command broke first
	conflict  error             // a snapshot read that met a later change
	pipes     map[*os.File]bool // pipes seen open (stdin or stdout of a command)
	abandoned bool              // the interpreter did not wind down within stopGrace
	procFiles map[string][]byte // the outputs of <(…), by their /dev/fd/N name
}

// newRun parses script and prepares its run from workdir.
func (sh *Shell) newRun(parent context.Context, sn *fileio.Snapshot, script, workdir string) (*run, error) {
	ctx, cancel := context.WithCancel(parent)
	r := &run{sh: sh, ctx: ctx, cancel: cancel, parent: parent, sn: sn, overlay: newOverlay(sn, sh.cfg),
		funcs: map[string]bool{}, pipes: map[*os.File]bool{}, procFiles: map[string][]byte{}}
	var token [8]byte
	rand.Read(token[:])
	suffix := hex.EncodeToString(token[:])
	r.lookupName, r.captureName = "agentfiles-lookup-"+suffix, "agentfiles-capture-"+suffix
	r.tmp = "/.agentfiles-no-fifos-" + suffix // does not exist: see rewrite
	file, err := parseScript(script, "bash", r.captureName, r.addFunc)
	if err != nil {
		cancel()
		return nil, err
	}
	r.file = file
	r.overlay.onConflict = r.noteConflict
	r.out = newOutput(sh.cfg.ShellMaxOutputBytes, agentfiles.AnswerEncodingFromContext(parent))
	r.search = &searcher{r: r}
	if r.dir, err = r.workdir(workdir); err != nil {
		cancel()
		return nil, err
	}
	return r, nil
}

// addFunc records a function the script declares (type and command -v answer for it).
func (r *run) addFunc(name string) {
	r.mu.Lock()
	r.funcs[name] = true
	r.mu.Unlock()
}

// workdir checks the starting directory.
func (r *run) workdir(dir string) (string, error) {
	if dir == "" {
		return "/", nil
	}
	p := clean(fileio.NormalizePath(dir))
	if p != "/" {
		if err := r.sh.cfg.PathRule.Validate(p); err != nil {
			return "", err
		}
	}
	fi, err := r.overlay.Stat(r.ctx, p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", agentfiles.NewError(agentfiles.CodeNotFound, fmt.Sprintf("workdir %s does not exist in project %s; give an existing directory, or \"/\"", p, r.sn.Project()), "workdir")
	case err != nil:
		return "", err
	case !fi.IsDir():
		return "", agentfiles.NewError(fileio.CodeNotDirectory, fmt.Sprintf("workdir %s is a file; give a directory", p), "workdir")
	}
	return p, nil
}

// close ends the run's context.
func (r *run) close() { r.cancel() }

// baseEnv is the fixed environment every command starts with.
var baseEnv = []string{"HOME=/", "PATH=/usr/bin:/bin", "LC_ALL=C", "LANG=C", "UID=1000", "EUID=1000", "GID=1000"}

// exported is the environment a shell passes to the programs it starts: its exported
// variables.
func exported(env expand.Environ) []string {
	var out []string
	for name, vr := range env.Each {
		if vr.IsSet() && vr.Exported && vr.Kind == expand.String && name != "TMPDIR" {
			out = append(out, name+"="+vr.String())
		}
	}
	return out
}

// newRunner returns an interpreter over the project, in dir, with the environment env (nil:
// baseEnv) and the given streams.
func (r *run) newRunner(dir string, env []string, stdin io.Reader, stdout, stderr io.Writer, params ...string) (*interp.Runner, error) {
	if env == nil {
		env = baseEnv
	}
	opts := []interp.RunnerOption{
		interp.Env(expand.ListEnviron(append(slices.Clip(env), "TMPDIR="+r.tmp)...)),
		func(runner *interp.Runner) error { runner.Dir = dir; return nil },
		interp.StdIO(stdin, stdout, stderr),
		interp.OpenHandler(r.open),
		interp.ReadDirHandler2(r.readDir),
		interp.StatHandler(r.stat),
		interp.AccessHandler(r.access),
		interp.CallHandler(r.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return r.exec }),
	}
	if len(params) > 0 {
		opts = append(opts, interp.Params(append([]string{"--"}, params...)...))
	}
	runner, err := interp.New(opts...)
	if err != nil {
		return nil, err
	}
	// The FIFO directory is read from TMPDIR once, at the first Reset; the script must not
	// see it.
	runner.Reset()
	unset, _ := syntax.NewParser().Parse(strings.NewReader("unset TMPDIR"), "")
	if err := runner.Run(r.ctx, unset); err != nil {
		return nil, err
	}
	return runner, nil
}

// execute runs the script and returns its exit status and the interpreter's error.
func (r *run) execute() (int, error) {
	runner, err := r.newRunner(r.dir, nil, nil, r.out.stdout(), r.out.stderr())
	if err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- runner.Run(r.ctx, r.file) }()
	var runErr error
	select {
	case runErr = <-done:
	case <-r.ctx.Done():
		select {
		case runErr = <-done:
		case <-time.After(stopGrace):
			r.mu.Lock()
			r.abandoned = true
			r.mu.Unlock()
			runErr = r.ctx.Err()
		}
	}
	r.overlay.end()
	var status interp.ExitStatus
	switch {
	case runErr == nil:
		return 0, nil
	case errors.As(runErr, &status):
		return int(status), nil
	}
	return 1, runErr
}

// stop records the first budget a command broke and stops the command.
func (r *run) stop(err error) error {
	r.mu.Lock()
	if r.stopped == nil {
		r.stopped = err
	}
	r.mu.Unlock()
	r.cancel()
	return err
}

// noteConflict records a snapshot read that met a change made after the snapshot.
func (r *run) noteConflict(err error) {
	if agentfiles.ErrorCode(err) != fileio.CodeConflict {
		return
	}
	r.mu.Lock()
	if r.conflict == nil {
		r.conflict = err
	}
	r.mu.Unlock()
	r.cancel()
}

// failure is the error that stops the command as a whole, if any, in order: the caller left,
// a budget of steps or pipes, the write budget, a conflicting change, the time budget, an
// interpreter failure.
func (r *run) failure(runErr error, timeout time.Duration) error {
	r.mu.Lock()
	stopped, conflict := r.stopped, r.conflict
	r.mu.Unlock()
	switch {
	case r.parent.Err() != nil && !errors.Is(r.parent.Err(), context.DeadlineExceeded):
		return agentfiles.ContextError(r.parent.Err())
	case stopped != nil:
		return stopped
	case r.overlay.overBudget():
		return agentfiles.NewError(fileio.CodeQuotaExceeded, fmt.Sprintf(
			"the command wrote more than %d bytes to files, the limit of one command (shell_max_write_bytes); nothing was written. Write less per command, or split the work",
			r.sh.cfg.ShellMaxWriteBytes), "command")
	case conflict != nil:
		return conflict
	case r.ctx.Err() != nil:
		return r.timeoutError(timeout)
	case runErr != nil:
		// A failure of the interpreter itself (an unsupported redirection such as 3>&1):
		// bash would print it and go on, so it becomes the command's stderr.
		fmt.Fprintf(r.out.stderr(), "bash: %v\n", runErr)
	}
	return nil
}

// timeoutError is the TIMEOUT of a command stopped at its budget.
func (r *run) timeoutError(timeout time.Duration) error {
	return agentfiles.NewError(agentfiles.CodeTimeout, fmt.Sprintf(
		"the command ran past its time budget of %d ms and was stopped; nothing was written. Give a larger timeout_ms (at most %d) or do less per command",
		timeout.Milliseconds(), r.sh.cfg.ShellMaxTimeout.Milliseconds()), "timeout_ms")
}

// result is the answer of a command that ended with status exit.
func (r *run) result(exit int) Result {
	res := Result{ExitCode: exit, Created: []string{}, Modified: []string{}, Deleted: []string{}}
	res.Stdout, res.Stderr, res.Truncated, res.Note = r.out.result()
	return res
}

// call is the interpreter's call handler: it runs before every simple command (builtins and
// functions included) and enforces the steps, depth and pipes budgets, and answers the
// builtins that would look at the host (type, command -v, hash, pwd -P, source with a bare
// name).
func (r *run) call(ctx context.Context, args []string) ([]string, error) {
	n, err := r.step()
	if err != nil {
		return nil, err
	}
	// Every 64 steps (a fraction of a millisecond), let a waiting goroutine (another tenant's
	// call) run now rather than at the scheduler's next preemption, 10 ms away. Yielding at
	// every step would cost more than the steps themselves.
	if n%64 == 0 {
		runtime.Gosched()
	}
	// Measuring the stack walks it, which costs as much as a simple command: do it for one
	// call in 16, at random, so that no pattern of calls avoids it (a recursion passes the
	// limit by 160 levels with a chance below one in a million, well within Go's stacks).
	var pcs [1]uintptr
	if mathrand.N(16) == 0 && runtime.Callers(maxFrames, pcs[:]) > 0 {
		return nil, r.stop(agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"the command nests function calls or subshells too deeply (about %d levels); nothing was written. Use a loop instead of recursion", maxFrames/10), "command"))
	}
	hc := interp.HandlerCtx(ctx)
	in, _ := hc.Stdin.(*os.File)
	out, _ := hc.Stdout.(*os.File)
	if in != nil || out != nil {
		if err := r.trackPipes(in, out); err != nil {
			return nil, err
		}
	}
	switch args[0] {
	case "type", "hash":
		return append([]string{r.lookupName}, args...), nil
	case "command":
		if len(args) > 1 && (strings.HasPrefix(args[1], "-v") || strings.HasPrefix(args[1], "-V")) {
			return append([]string{r.lookupName}, args...), nil
		}
	case "pwd":
		return []string{"pwd"}, nil
	case "source", ".":
		if len(args) > 1 && !strings.Contains(args[1], "/") {
			args = append([]string{args[0], path.Join(hc.Dir, args[1])}, args[2:]...)
		}
		if len(args) == 2 {
			// Run as eval of the file's text, rewritten as the script was.
			data, err := r.overlay.ReadFile(ctx, abs(hc.Dir, args[1]))
			if err != nil {
				return args, nil // source reports it
			}
			text, err := rewriteText(string(data), r.captureName, r.addFunc)
			if err != nil {
				return nil, r.stop(err)
			}
			return []string{"eval", text}, nil
		}
	case "eval":
		text, err := rewriteText(strings.Join(args[1:], " "), r.captureName, r.addFunc)
		if err != nil {
			return nil, r.stop(err)
		}
		return []string{"eval", text}, nil
	}
	return args, nil
}

// step counts one step against Config.ShellMaxSteps and returns the count.
func (r *run) step() (int64, error) {
	n := r.steps.Add(1)
	if n > r.sh.cfg.ShellMaxSteps {
		return n, r.stop(agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"the command ran more than %d simple commands (shell_max_steps) and was stopped; nothing was written. Do less per command",
			r.sh.cfg.ShellMaxSteps), "command"))
	}
	return n, nil
}

// trackPipes records the pipes a command reads or writes and fails past Config.ShellMaxPipes
// open at once. Every pipe of the interpreter (pipeline stages, process substitutions,
// here-documents, redirected input) reaches some command's stdin or stdout; each has at most
// one goroutine behind it.
func (r *run) trackPipes(files ...*os.File) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range files {
		if f != nil {
			r.pipes[f] = true
		}
	}
	if len(r.pipes) <= r.sh.cfg.ShellMaxPipes {
		return nil
	}
	for f := range r.pipes {
		if isClosed(f) {
			delete(r.pipes, f)
		}
	}
	if len(r.pipes) <= r.sh.cfg.ShellMaxPipes {
		return nil
	}
	err := agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
		"the command held more than %d pipes open at once (shell_max_pipes), as a fork bomb does, and was stopped; nothing was written",
		r.sh.cfg.ShellMaxPipes), "command")
	if r.stopped == nil {
		r.stopped = err
	}
	r.cancel()
	return err
}

// isClosed reports whether f was closed.
func isClosed(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return true
	}
	return rc.Control(func(uintptr) {}) != nil
}

// exec is the interpreter's exec handler: every simple command that is neither a builtin nor
// a function comes here, and runs a Go command or exits 127.
func (r *run) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	switch args[0] {
	case r.lookupName:
		return exitStatus(r.lookup(hc, args[1:]))
	case r.captureName:
		return exitStatus(r.capture(hc))
	}
	var stdin io.Reader = hc.Stdin
	if f, ok := hc.Stdin.(*os.File); ok && f == nil {
		stdin = nil
	}
	status := r.runCommand(ctx, hc.Dir, exported(hc.Env), hc.Pos, args, stdin, hc.Stdout, hc.Stderr, func(args []string) int {
		if err := hc.Builtin(ctx, args); err != nil {
			var st interp.ExitStatus
			if errors.As(err, &st) {
				return int(st)
			}
			return 1
		}
		return 0
	})
	return exitStatus(status)
}

func exitStatus(status int) error {
	if status == 0 {
		return nil
	}
	return interp.ExitStatus(uint8(status))
}

// runCommand runs the command args in dir with the given streams: a Go command, a builtin
// named by path (/bin/echo), bash or sh, or 127. builtin runs a builtin (nil: in a fresh
// interpreter).
func (r *run) runCommand(ctx context.Context, dir string, env []string, pos syntax.Pos, args []string, stdin io.Reader, stdout, stderr io.Writer, builtin func([]string) int) int {
	if ctx.Err() != nil {
		return 130
	}
	name := args[0]
	if base, ok := strings.CutPrefix(name, "/usr/bin/"); ok && !strings.Contains(base, "/") {
		name = base
	} else if base, ok := strings.CutPrefix(name, "/bin/"); ok && !strings.Contains(base, "/") {
		name = base
	}
	// A command without standard input gets a nil Stdin, as the contract says (rg then searches
	// the working directory rather than its input, as ripgrep does with /dev/null).
	switch {
	case interp.IsBuiltin(name):
		args = append([]string{name}, args[1:]...)
		if builtin != nil {
			return builtin(args)
		}
		return r.freshBuiltin(dir, env, args, stdin, stdout, stderr)
	case name == "bash" || name == "sh":
		return r.subScript(ctx, dir, env, args, stdin, stdout, stderr)
	case name == "which":
		return r.which(args[1:], stdout)
	}
	f := lookupCommand(name)
	if f == nil {
		return r.notFound(dir, pos, args[0], stderr)
	}
	cenv := &commands.Env{Dir: dir, Stdin: stdin, Stdout: stdout, Stderr: stderr, Search: r.search}
	cfs := &cmdFS{overlay: r.overlay, r: r, env: cenv}
	defer cfs.close()
	cenv.FS = cfs
	cenv.Exec = func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		if len(args) == 0 {
			return 0
		}
		if _, err := r.step(); err != nil {
			return 126
		}
		return r.runCommand(ctx, dir, env, syntax.Pos{}, args, stdin, stdout, stderr, nil)
	}
	args = append([]string{name}, args[1:]...)
	return f(ctx, cenv, args)
}

// notFound prints bash's message for a command that is not there and returns its status.
func (r *run) notFound(dir string, pos syntax.Pos, name string, stderr io.Writer) int {
	where := "bash: "
	if pos.IsValid() {
		where = fmt.Sprintf("bash: line %d: ", pos.Line())
	}
	if strings.Contains(name, "/") {
		// A path: the project may hold such a file, but nothing in a project runs.
		if fi, err := r.overlay.Stat(r.ctx, path.Join(dir, name)); err == nil {
			if fi.IsDir() {
				fmt.Fprintf(stderr, "%s%s: Is a directory\n", where, name)
			} else {
				fmt.Fprintf(stderr, "%s%s: Permission denied\n", where, name)
			}
			return 126
		}
		fmt.Fprintf(stderr, "%s%s: No such file or directory\n", where, name)
		return 127
	}
	fmt.Fprintf(stderr, "%s%s: command not found\n", where, name)
	return 127
}

// freshBuiltin runs a builtin (echo, printf, test, …) for xargs or find -exec, in an
// interpreter of its own.
func (r *run) freshBuiltin(dir string, env, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if _, ok := stdin.(*os.File); !ok {
		stdin = nil // a builtin run this way reads no input; a non-file reader would need a pipe
	}
	runner, err := r.newRunner(dir, env, stdin, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bash: %v\n", err)
		return 1
	}
	call := &syntax.CallExpr{}
	for _, a := range args {
		call.Args = append(call.Args, &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: a}}})
	}
	err = runner.Run(r.ctx, &syntax.Stmt{Cmd: call})
	var st interp.ExitStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &st):
		return int(st)
	}
	return 1
}

// subScript runs bash or sh: -c TEXT [NAME ARGS…], FILE [ARGS…], or a script on stdin.
func (r *run) subScript(ctx context.Context, dir string, env, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	name := args[0]
	rest := args[1:]
	var text string
	var params []string
	var src string
	zero := name
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") && rest[0] != "-" {
		flag := rest[0]
		rest = rest[1:]
		if flag == "--" {
			break
		}
		if strings.Contains(flag, "c") {
			if len(rest) == 0 {
				fmt.Fprintf(stderr, "%s: -c: option requires an argument\n", name)
				return 2
			}
			text, src, rest = rest[0], "-c", rest[1:]
			break
		}
	}
	switch {
	case src == "-c":
		if len(rest) > 0 {
			zero, params = rest[0], rest[1:]
		}
	case len(rest) > 0:
		data, err := r.overlay.ReadFile(ctx, path.Join(dir, rest[0]))
		if err != nil {
			fmt.Fprintf(stderr, "%s: %s: %s\n", name, rest[0], errText(err))
			return 127
		}
		zero, text, params = rest[0], string(data), rest[1:]
	case stdin == nil:
		// No script and no input: nothing to run.
	default:
		data, err := io.ReadAll(io.LimitReader(stdin, r.sh.cfg.MaxFileBytes))
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 1
		}
		text = string(data)
	}
	file, err := parseScript(text, zero, r.captureName, r.addFunc)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", name, messageOf(err))
		return 2
	}
	if _, ok := stdin.(*os.File); !ok {
		stdin = nil
	}
	runner, err := r.newRunner(dir, env, stdin, stdout, stderr, params...)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	err = runner.Run(ctx, file)
	var st interp.ExitStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &st):
		return int(st)
	}
	return 1
}

// kindOf says what name is to the shell: "keyword", "function", "builtin", "file" or "".
func (r *run) kindOf(name string) string {
	r.mu.Lock()
	isFunc := r.funcs[name]
	r.mu.Unlock()
	switch {
	case syntax.IsKeyword(name):
		return "keyword"
	case isFunc:
		return "function"
	case interp.IsBuiltin(name):
		return "builtin"
	case lookupCommand(name) != nil || name == "bash" || name == "sh" || name == "which":
		return "file"
	}
	return ""
}

// lookup answers type, command -v / -V and hash from the commands offered.
func (r *run) lookup(hc interp.HandlerContext, args []string) int {
	cmd := args[0]
	args = args[1:]
	mode := ""
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		mode += args[0][1:]
		args = args[1:]
	}
	where := "bash: "
	if hc.Pos.IsValid() {
		where = fmt.Sprintf("bash: line %d: ", hc.Pos.Line())
	}
	status := 0
	for _, name := range args {
		kind := r.kindOf(name)
		switch {
		case cmd == "hash":
			if kind == "" {
				fmt.Fprintf(hc.Stderr, "%shash: %s: not found\n", where, name)
				status = 1
			}
		case cmd == "command" && strings.Contains(mode, "v"):
			switch kind {
			case "":
				status = 1
			case "file":
				fmt.Fprintf(hc.Stdout, "/usr/bin/%s\n", name)
			default:
				fmt.Fprintf(hc.Stdout, "%s\n", name)
			}
		case strings.Contains(mode, "t"):
			if kind == "" {
				status = 1
				continue
			}
			fmt.Fprintln(hc.Stdout, kind)
		case strings.ContainsAny(mode, "pP"):
			if kind == "file" || (kind != "" && strings.Contains(mode, "P") && kind == "builtin" && lookupCommand(name) != nil) {
				fmt.Fprintf(hc.Stdout, "/usr/bin/%s\n", name)
			} else if kind == "" {
				status = 1
			}
		default: // type, command -V
			switch kind {
			case "":
				fmt.Fprintf(hc.Stderr, "%s%s: %s: not found\n", where, cmd, name)
				status = 1
			case "keyword":
				fmt.Fprintf(hc.Stdout, "%s is a shell keyword\n", name)
			case "function":
				fmt.Fprintf(hc.Stdout, "%s is a function\n", name)
			case "builtin":
				fmt.Fprintf(hc.Stdout, "%s is a shell builtin\n", name)
			case "file":
				fmt.Fprintf(hc.Stdout, "%s is /usr/bin/%s\n", name, name)
			}
		}
	}
	return status
}

// which prints the path of each command offered, as which does.
func (r *run) which(names []string, stdout io.Writer) int {
	status := 0
	for _, name := range names {
		if k := r.kindOf(name); k == "file" || (k == "builtin" && lookupCommand(name) != nil) {
			fmt.Fprintf(stdout, "/usr/bin/%s\n", name)
		} else {
			status = 1
		}
	}
	return status
}

// lookupCommand finds a command by name (a variable so that tests can add commands the
// registry does not have yet).
var lookupCommand = commands.Lookup

// capture keeps what <(…) printed as /dev/fd/N and prints that name (see rewrite).
func (r *run) capture(hc interp.HandlerContext) int {
	limit := r.sh.cfg.MaxFileBytes
	var data []byte
	if hc.Stdin != nil {
		if f, ok := hc.Stdin.(*os.File); !ok || f != nil {
			data, _ = io.ReadAll(io.LimitReader(hc.Stdin, limit))
		}
	}
	r.overlay.mu.Lock()
	err := r.overlay.charge("<(…)", len(data))
	r.overlay.mu.Unlock()
	if err != nil {
		fmt.Fprintf(hc.Stderr, "bash: %s\n", errText(err))
		return 1
	}
	r.mu.Lock()
	name := fmt.Sprintf("/dev/fd/%d", 63+len(r.procFiles))
	r.procFiles[name] = data
	r.mu.Unlock()
	fmt.Fprintln(hc.Stdout, name)
	return 0
}

// procFile returns the output of a <(…) by its name.
func (r *run) procFile(p string) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	data, ok := r.procFiles[p]
	return data, ok
}
