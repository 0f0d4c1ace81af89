// Package shell runs bash text over one project of a fileio.Service: file_shell, the tool
// for agents trained on the shell (Codex reads with sed -n, searches with rg -n and writes
// with heredocs and apply_patch; Claude Code and Gemini CLI mix pipelines with their tools).
//
//	sh := shell.New(svc, shell.Options{})
//	res, err := sh.Run(ctx, shell.Request{Project: "demo", Command: "rg -n TODO | head -5"})
//
// # The language and the commands
//
// The text is parsed and interpreted by mvdan.cc/sh/v3 as bash: pipes, && and ||,
// redirections (>, >>, <, 2>&1, 2>/dev/null, &>), here-documents and here-strings, $(…) and
// <(…) / >(…), variables, arithmetic, if/for/while/case, functions, globbing over the
// project's paths in byte order, cd and pwd. The project root is "/", and "cd .." at the
// root stays there. The commands (cat, sed, rg, grep, find, sort, awk, jq, xargs,
// apply_patch, …) are Go implementations with GNU's output for the flags agents use
// (package fileio/shell/internal/commands); bash's own builtins (echo, printf, test, read,
// …) are the interpreter's. A name that is neither exits 127 with bash's
// "bash: line N: NAME: command not found"; /bin/NAME and /usr/bin/NAME name the command NAME.
// bash and sh run a script (-c TEXT, a file, or standard input) in the same command.
//
// # Nothing of the host
//
// Every handler of the interpreter is replaced: files are opened, listed and stat'ed in the
// project only; commands run in this process, never a host binary; the environment is fixed
// (HOME=/, PWD, OLDPWD, PATH=/usr/bin:/bin as text, LC_ALL=C, LANG=C, UID/EUID/GID=1000) and
// never the process's. type, command -v and hash answer from the commands offered, not from a
// host PATH. /dev/null, /dev/stdin, /dev/stdout, /dev/stderr and /dev/fd/0-2 behave as on
// Linux; other names under /dev, and /proc, are project paths like any other. <(…) and >(…)
// expand to a FIFO in a temporary directory private to the command (removed after it) that
// only those FIFOs can be opened in; the directory is not in the environment. Background jobs
// (&) run to completion in place, one at a time, so wait returns at once and $! is empty.
//
// # One command, one transaction
//
// A command reads the project through a fileio.Snapshot: every read answers as the project
// stood at one change-feed position, without a transaction, connection or lock held between
// reads (each read is a short read transaction that also checks the feed's head, so it fails
// with CONFLICT rather than mix in a change made meanwhile). Writes go to an overlay that later
// reads of the same command see. When the command ends, whatever its exit status (as bash
// leaves the files it wrote), the overlay is committed in one write transaction
// (Snapshot.Commit): every changed file becomes one version in its history and one event in
// the change feed, so checkpoints, rewind and file_changes see the command as one step, and
// no reader ever sees half of it. If another writer changed a file the command read or wrote
// (or a directory it listed) meanwhile, nothing is written and Run fails with CONFLICT: run
// the command again. A file whose final content equals its content at the snapshot is not
// written. Directories are implicit in a project: a directory made by mkdir lasts while the
// command runs; one still empty at the end is dropped, and the answer's note says so.
//
// # Budgets
//
// Each command runs within (fileio.Config):
//   - wall time: Request.Timeout, by default ShellTimeout (10 s), at most ShellMaxTimeout (60 s);
//     a command still running then is stopped and Run fails with TIMEOUT, writing nothing, as
//     when the caller's context ends (CANCELED);
//   - steps: at most ShellMaxSteps simple commands (250,000), and a nesting depth of
//     function calls and subshells of a few hundred; past either it stops with
//     INVALID_ARGUMENT and writes nothing;
//   - pipes: at most ShellMaxPipes (64) pipes open at once (pipeline stages, process
//     substitutions, here-documents, redirected input), each with at most one goroutine, so a
//     fork bomb such as :(){ :|:& };: stops with INVALID_ARGUMENT, writing nothing;
//   - bytes written: ShellMaxWriteBytes (32 MiB) counted over every write and append; past it
//     the command fails with QUOTA_EXCEEDED and writes nothing. The project's quota and
//     max_file_bytes apply at the commit as to any write;
//   - output: stdout and stderr together at most ShellMaxOutputBytes (256 KiB) as sent (JSON
//     with its escapes; over MCP, which sends an answer twice, the cap counts both copies).
//     Past it writes to them fail, which ends a command such as yes as SIGPIPE would, and the
//     answer says truncated with a note. Output that is not UTF-8 is sent with U+FFFD;
//   - concurrency: each tenant runs at most Options.MaxConcurrent commands at once (default
//     half the CPUs, at least 1) and the server Options.MaxConcurrentTotal (default the CPUs);
//     further commands wait for a slot within their time budget, so one tenant's loop never
//     takes another tenant's CPU. Each read of the snapshot also holds one of the tenant's call
//     slots of the Service while it runs.
//
// # Errors
//
// Run returns an *agentfiles.Error for what stops a command as a whole: INVALID_ARGUMENT (no
// command, both forms, an argv form that is not bash -c, a syntax error, a budget of steps or
// pipes), INVALID_PATH (a bad workdir), NOT_FOUND or NOT_DIRECTORY for a workdir that is no
// directory, TIMEOUT, CANCELED, CONFLICT, QUOTA_EXCEEDED, RESOURCE_BUSY and the errors every
// operation shares. A command that merely fails (exit status not 0) is a Result.
package shell

import (
	"context"
	"errors"
	"fmt"
	"path"
	"runtime"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/internal/keyedslots"
)

// Shell runs commands over the projects of one fileio.Service. It is safe for concurrent use.
type Shell struct {
	svc  *fileio.Service
	cfg  fileio.Config
	gate *keyedslots.Gate
}

// Options are the optional settings of a Shell; the zero value is valid.
type Options struct {
	// MaxConcurrent is how many commands one tenant runs at once; more wait for one of
	// theirs to end. 0: fileio.Config.ConcurrentCalls (half the CPUs, at least 1).
	MaxConcurrent int
	// MaxConcurrentTotal is how many commands all tenants run at once; more wait for one to
	// end (after their tenant's own slot). 0: the number of CPUs, at least 2.
	MaxConcurrentTotal int
}

// New returns a Shell over svc, with the limits of svc.Config().
func New(svc *fileio.Service, opts Options) *Shell {
	if svc == nil {
		panic("shell.New: nil *fileio.Service")
	}
	cfg := svc.Config()
	perTenant, total := opts.MaxConcurrent, opts.MaxConcurrentTotal
	if perTenant <= 0 {
		perTenant = cfg.ConcurrentCalls()
	}
	if total <= 0 {
		total = max(runtime.GOMAXPROCS(0), 2)
	}
	return &Shell{svc: svc, cfg: cfg, gate: keyedslots.NewGate(perTenant, total)}
}

// Request is one command to run.
type Request struct {
	Project string
	// Command is bash text, such as "sed -n '1,200p' src/main.go" or a whole script.
	Command string
	// Argv is the argv form Codex sends, ["bash", "-lc", "…"]: bash or sh (a path such as
	// /bin/bash too) with -c, -lc or -l -c and the text. Give Command or Argv, not both.
	Argv []string
	// Workdir is the project directory the command starts in ("" or "/": the root).
	Workdir string
	// Timeout is the command's wall-time budget: 0 for Config.ShellTimeout; more than
	// Config.ShellMaxTimeout is clamped to it (the note says so).
	Timeout time.Duration
}

// MaxListedChanges is the most changed files a Result lists (Created, Modified and Deleted
// together); past it the answer says truncated with a note.
const MaxListedChanges = 1000

// Result is what a command did.
type Result struct {
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	ExitCode int    `json:"exit_code"`
	// Truncated says that stdout or stderr were cut at the output budget; Note says how.
	Truncated bool   `json:"truncated"`
	Note      string `json:"note,omitempty"`
	// Created, Modified and Deleted are the files the command changed, in path order, at most
	// MaxListedChanges of them together.
	Created  []string `json:"created"`
	Modified []string `json:"modified"`
	Deleted  []string `json:"deleted"`
}

// ScriptOf returns the bash text of an argv form (see Request.Argv): ["bash", "-lc", TEXT]
// and the like give TEXT; anything else is INVALID_ARGUMENT saying which forms are accepted.
func ScriptOf(argv []string) (string, error) {
	bad := func(why string) error {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument,
			"command as a list must be a shell running text, such as [\"bash\", \"-lc\", \"ls -la\"]: "+why, "command")
	}
	if len(argv) == 0 {
		return "", bad("the list is empty")
	}
	if name := path.Base(argv[0]); name != "bash" && name != "sh" {
		return "", bad(fmt.Sprintf("%q is not bash or sh; put the command line in the text", argv[0]))
	}
	rest := argv[1:]
	seenC := false
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") && !seenC {
		flag := rest[0]
		rest = rest[1:]
		if flag == "--" {
			break
		}
		for _, c := range flag[1:] {
			switch c {
			case 'c':
				seenC = true
			case 'l', 'e', 'u', 'x', 'o':
				// -l (login), -e, -u, -x and pipefail-style -o are accepted; -o takes a name.
				if c == 'o' && len(rest) > 0 {
					rest = rest[1:]
				}
			default:
				return "", bad(fmt.Sprintf("the option %q is not supported", flag))
			}
		}
	}
	if !seenC || len(rest) == 0 {
		return "", bad("it has no -c and text to run")
	}
	return rest[0], nil
}

// Run runs req and commits what it wrote (see the package documentation).
func (sh *Shell) Run(ctx context.Context, req Request) (Result, error) {
	script, err := sh.script(req)
	if err != nil {
		return Result{}, err
	}
	timeout, clamped := sh.timeout(req.Timeout)
	sn, err := sh.svc.Snapshot(ctx, req.Project)
	if err != nil {
		return Result{}, err
	}
	// The budget covers the wait for a command slot too.
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ac, _ := agentfiles.AuthFromContext(ctx)
	release, all, err := sh.gate.Acquire(ctx, ac.TenantID())
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			whose := "this tenant's other commands"
			if all {
				whose = "the server's other commands (every tenant's)"
			}
			return Result{}, agentfiles.NewError(agentfiles.CodeTimeout, fmt.Sprintf(
				"the command waited its whole time budget (%d ms) for %s to end; nothing ran. Retry, or run fewer commands at once",
				timeout.Milliseconds(), whose), "timeout_ms")
		}
		return Result{}, agentfiles.ContextError(err)
	}
	defer release()
	r, err := sh.newRun(ctx, sn, script, req.Workdir)
	if err != nil {
		return Result{}, err
	}
	defer r.close()
	exit, runErr := r.execute()
	if err := r.failure(runErr, timeout); err != nil {
		return Result{}, err
	}
	res := r.result(exit)
	if clamped {
		res.Note = joinNotes(fmt.Sprintf("timeout_ms was clamped to %d, the maximum", sh.cfg.ShellMaxTimeout.Milliseconds()), res.Note)
	}
	changes, dropped := r.overlay.changes(ctx)
	if len(dropped) > 0 {
		res.Note = joinNotes(res.Note, fmt.Sprintf("empty directories are not kept in a project (a directory exists while a file lies below it): %s was dropped", strings.Join(dropped, ", ")))
	}
	committed, err := sn.Commit(ctx, changes)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || agentfiles.ErrorCode(err) == agentfiles.CodeTimeout {
			return Result{}, r.timeoutError(timeout)
		}
		return Result{}, err
	}
	if n := len(committed.Files); n > MaxListedChanges {
		res.Truncated = true
		res.Note = joinNotes(res.Note, fmt.Sprintf("the command changed %d files; the first %d (in path order) are listed: file_events or file_changes list them all", n, MaxListedChanges))
		committed.Files = committed.Files[:MaxListedChanges]
	}
	for _, f := range committed.Files {
		switch f.Kind {
		case "created":
			res.Created = append(res.Created, f.Path)
		case "modified":
			res.Modified = append(res.Modified, f.Path)
		case "deleted":
			res.Deleted = append(res.Deleted, f.Path)
		}
	}
	return res, nil
}

// script returns the text to run.
func (sh *Shell) script(req Request) (string, error) {
	switch {
	case req.Command != "" && len(req.Argv) > 0:
		return "", agentfiles.NewError(agentfiles.CodeInvalidArgument, "give the command as text or as a list, not both", "command")
	case len(req.Argv) > 0:
		return ScriptOf(req.Argv)
	case strings.TrimSpace(req.Command) == "":
		return "", agentfiles.NewError(agentfiles.CodeInvalidArgument, "command is empty; give bash text such as \"ls -la\"", "command")
	}
	return req.Command, nil
}

// timeout is the budget of a request and whether it was clamped.
func (sh *Shell) timeout(asked time.Duration) (time.Duration, bool) {
	switch {
	case asked <= 0:
		return sh.cfg.ShellTimeout, false
	case asked > sh.cfg.ShellMaxTimeout:
		return sh.cfg.ShellMaxTimeout, true
	}
	return asked, false
}

func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}
