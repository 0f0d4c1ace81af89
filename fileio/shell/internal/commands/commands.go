package commands

import (
	"context"
	"io"
	"io/fs"
	"path"
	"time"
)

// Func runs one command. args[0] is the command's name as invoked. It returns the exit
// status.
type Func func(ctx context.Context, env *Env, args []string) int

// Env is everything a command may use.
type Env struct {
	// Dir is the working directory, an absolute project path ("/" or "/src/app").
	Dir string
	// Stdin is nil when the command line has no standard input (a terminal, for the
	// commands that ask: rg then searches the working directory, as ripgrep does).
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// FS is the project as this command sees it.
	FS FS
	// Search, when not nil, narrows the files a recursive search reads (rg, grep -r): the
	// project's grep engine (indexed on PostgreSQL). Commands work without it, reading
	// every file through FS.
	Search Searcher
	// Exec runs another command line's command (xargs, find -exec) with the given streams,
	// as the shell would run it (args[0] a command name; unknown names exit 127 with bash's
	// message on stderr). Nil: such commands fail with status 126.
	Exec func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
	// Now is the time touch and friends use; nil is time.Now.
	Now func() time.Time
}

// Abs resolves name against Dir: an absolute project path, cleaned ("." and ".." segments
// resolved; ".." at the root stays at the root).
func (e *Env) Abs(name string) string {
	if path.IsAbs(name) {
		return path.Clean(name)
	}
	return path.Join(e.dir(), name)
}

func (e *Env) dir() string {
	if e.Dir == "" {
		return "/"
	}
	return e.Dir
}

// FS is a project's files during one command line. Names are absolute project paths
// (Env.Abs). Directories are implicit in a project (one exists while a file lies below
// it) but a command line may create empty ones (mkdir), which last until it ends.
// Errors wrap fs.ErrNotExist, fs.ErrExist, fs.ErrInvalid (a file where a directory is
// needed, or the reverse) or fs.ErrPermission where those apply, so commands can print
// GNU's message; any other error (a budget exceeded, a cancelled context) is printed as
// its text.
type FS interface {
	// Stat describes the file or directory at name ("/" is always a directory).
	Stat(ctx context.Context, name string) (fs.FileInfo, error)
	// ReadDir lists the directory at name, sorted by name (bytewise).
	ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error)
	// ReadFile returns the content of the file at name. The caller must not modify it.
	ReadFile(ctx context.Context, name string) ([]byte, error)
	// WriteFile creates or replaces the file at name (its parent directories appear with
	// it), or appends data to it when append is true.
	WriteFile(ctx context.Context, name string, data []byte, append bool) error
	// Mkdir creates the directory at name; with parents, missing parents too and no error
	// when it exists (mkdir -p).
	Mkdir(ctx context.Context, name string, parents bool) error
	// Remove removes the file at name, or with recursive the file or directory tree at name.
	Remove(ctx context.Context, name string, recursive bool) error
	// Rename moves the file or directory tree at oldName to newName (mv semantics, where
	// newName is the final name, never a directory to move into: the command resolves that).
	Rename(ctx context.Context, oldName, newName string) error
	// Touch sets the modification time of the file at name to t, creating an empty file
	// when it does not exist.
	Touch(ctx context.Context, name string, t time.Time) error
}

// Searcher is the project's grep engine, offered to rg and grep -r.
type Searcher interface {
	// Candidates returns, in bytewise path order, the files below dir (an absolute project
	// path; "/" for all) in which some line may match the RE2 pattern re (Go regexp syntax,
	// as the command itself will match it; ignoreCase as (?i)). Every file with a matching
	// line is returned; files without one may be. complete is false when the engine could
	// not decide (over a budget): the command then reads every file itself.
	Candidates(ctx context.Context, dir, re string, ignoreCase bool) (paths []string, complete bool, err error)
}
