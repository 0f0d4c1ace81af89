package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/shell/internal/commands"
	"mvdan.cc/sh/v3/interp"
)

// The interpreter's file handlers: every path the shell itself opens (redirections, source),
// lists (globbing) or stats (test, [[ ]], cd) is a project path, served by the overlay, or
// one of the /dev names below. Nothing reaches the host's files.

// devNames are the device names the shell serves, as on Linux.
var devNames = map[string]string{
	"/dev/null": "null", "/dev/stdin": "stdin", "/dev/stdout": "stdout", "/dev/stderr": "stderr",
	"/dev/fd/0": "stdin", "/dev/fd/1": "stdout", "/dev/fd/2": "stderr",
}

// abs resolves name against dir as the interpreter does.
func abs(dir, name string) string {
	if path.IsAbs(name) {
		return path.Clean(name)
	}
	return path.Join(dir, name)
}

// errText is the GNU text of an error from the overlay: "No such file or directory", "Is a
// directory", … or the error's own text.
func errText(err error) string {
	var fe *fsErr
	var be *budgetError
	switch {
	case errors.As(err, &be):
		return be.Error()
	case errors.As(err, &fe):
		return fe.text
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, fs.ErrExist):
		return "File exists"
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// shellError is an error of the shell's own opening of name, printed by the interpreter as
// bash prints it ("bash: NAME: No such file or directory").
func shellError(name string, err error) error {
	return &os.PathError{Op: "bash:", Path: name, Err: errors.New(errText(err))}
}

// open is the interpreter's open handler.
func (r *run) open(ctx context.Context, name string, flag int, _ os.FileMode) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	p := abs(hc.Dir, name)
	if dev, ok := devNames[p]; ok {
		return openDev(dev, hc), nil
	}
	if data, ok := r.procFile(p); ok {
		if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
			return nil, shellError(name, fs.ErrPermission)
		}
		return r.pipeOf(data)
	}
	if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		data, err := r.overlay.ReadFile(ctx, p)
		if err != nil {
			r.noteConflict(err)
			return nil, shellError(name, err)
		}
		return r.pipeOf(data)
	}
	if err := r.overlay.checkCreate(ctx, p); err != nil {
		r.noteConflict(err)
		return nil, shellError(name, err)
	}
	if flag&os.O_TRUNC != 0 {
		if err := r.overlay.WriteFile(ctx, p, nil, false); err != nil {
			return nil, shellError(name, err)
		}
	} else if err := r.overlay.WriteFile(ctx, p, nil, true); err != nil {
		return nil, shellError(name, err)
	}
	return &fileWriter{ctx: ctx, o: r.overlay, path: p}, nil
}

// pipeOf returns the read end of a pipe that yields data. The interpreter passes a redirected
// input to commands as an *os.File; a file it gets from us directly saves it a pipe and a
// copying goroutine that would never end if the command stopped reading early.
func (r *run) pipeOf(data []byte) (io.ReadWriteCloser, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	if err := r.trackPipes(pr); err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	if len(data) <= 16<<10 {
		// Fits the pipe's buffer: written now, no goroutine.
		pw.Write(data)
		pw.Close()
		return pr, nil
	}
	go func() {
		// Ends when the data is written or the reader closes its end (after the command).
		pw.Write(data)
		pw.Close()
	}()
	return pr, nil
}

// fileWriter appends what a redirected command writes to a project file.
type fileWriter struct {
	ctx  context.Context
	o    *overlay
	path string
}

func (w *fileWriter) Write(p []byte) (int, error) {
	if err := w.o.WriteFile(w.ctx, w.path, p, true); err != nil {
		return 0, err
	}
	return len(p), nil
}
func (w *fileWriter) Read([]byte) (int, error) { return 0, io.EOF }
func (w *fileWriter) Close() error             { return nil }

// openDev opens a /dev name.
func openDev(dev string, hc interp.HandlerContext) io.ReadWriteCloser {
	switch dev {
	case "stdin":
		if hc.Stdin != nil {
			if f, ok := hc.Stdin.(*os.File); !ok || f != nil {
				return devFile{r: hc.Stdin}
			}
		}
	case "stdout":
		return devFile{w: hc.Stdout}
	case "stderr":
		return devFile{w: hc.Stderr}
	}
	return devFile{}
}

// devFile is an open /dev name: a reader, a writer, or /dev/null (neither). Closing it leaves
// the stream it stands for open.
type devFile struct {
	r io.Reader
	w io.Writer
}

func (d devFile) Read(p []byte) (int, error) {
	if d.r == nil {
		return 0, io.EOF
	}
	return d.r.Read(p)
}
func (d devFile) Write(p []byte) (int, error) {
	if d.w == nil {
		return len(p), nil
	}
	return d.w.Write(p)
}
func (d devFile) Close() error { return nil }

// readDir is the interpreter's directory handler (globbing).
func (r *run) readDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	hc := interp.HandlerCtx(ctx)
	p := abs(hc.Dir, name)
	entries, err := r.overlay.ReadDir(ctx, p)
	if err != nil {
		r.noteConflict(err)
		if errors.Is(err, errNotDir) {
			return nil, &os.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &os.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
		}
		return nil, err
	}
	return entries, nil
}

// stat is the interpreter's stat handler (test, [[ ]], cd).
func (r *run) stat(ctx context.Context, name string, _ bool) (fs.FileInfo, error) {
	p := abs("/", name)
	if dev, ok := devNames[p]; ok {
		return info{name: dev, mod: time.Time{}}.asDevice(), nil
	}
	if data, ok := r.procFile(p); ok {
		return fifoInfo{info{name: path.Base(p), size: int64(len(data))}}, nil
	}
	fi, err := r.overlay.Stat(ctx, p)
	if err != nil {
		r.noteConflict(err)
		return nil, &os.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return fi, nil
}

// access is the interpreter's access handler (test -r -w -x, cd): every file and directory
// is readable and writable, directories are searchable, nothing is executable.
func (r *run) access(ctx context.Context, name string, mode interp.AccessMode) error {
	fi, err := r.stat(ctx, name, true)
	if err != nil {
		return err
	}
	if mode&interp.AccessExec != 0 && !fi.IsDir() {
		return &os.PathError{Op: "access", Path: name, Err: fs.ErrPermission}
	}
	return nil
}

// deviceInfo is the FileInfo of a /dev name: a character device.
type deviceInfo struct{ info }

func (i info) asDevice() fs.FileInfo         { return deviceInfo{i} }
func (deviceInfo) Mode() fs.FileMode         { return fs.ModeDevice | fs.ModeCharDevice | 0o666 }
func (deviceInfo) IsDir() bool               { return false }
func (d deviceInfo) ModTime() time.Time      { return d.mod }
func (d deviceInfo) Name() string            { return d.name }
func (deviceInfo) Size() int64               { return 0 }
func (deviceInfo) Sys() any                  { return nil }
func (o *overlay) overBudget() bool          { o.mu.Lock(); defer o.mu.Unlock(); return o.over }
func (c *cmdFS) dev(p string) (string, bool) { d, ok := devNames[p]; return d, ok }

// checkCreate returns the error bash gives for a redirection that creates or appends to p:
// its directory must exist.
func (o *overlay) checkCreate(ctx context.Context, p string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.checkWritable(ctx, p); err != nil {
		return err
	}
	dir := path.Dir(p)
	fi, err := o.stat(ctx, dir)
	switch {
	case err != nil:
		return err
	case !fi.IsDir():
		return pathErr("open", p, errNotDir)
	}
	return nil
}

// cmdFS is the project as one Go command sees it: the overlay, plus the /dev names and the
// outputs of <(…) (/dev/fd/N).
type cmdFS struct {
	*overlay
	r   *run
	env *commands.Env
}

// ReadFile implements commands.FS.
func (c *cmdFS) ReadFile(ctx context.Context, name string) ([]byte, error) {
	p := clean(name)
	if dev, ok := c.dev(p); ok {
		switch dev {
		case "stdin":
			return c.readAll(ctx, c.stdin(), p)
		case "stdout", "stderr":
			return nil, pathErr("read", p, fs.ErrPermission)
		}
		return []byte{}, nil
	}
	if data, ok := c.r.procFile(p); ok {
		return data, nil
	}
	if err := c.r.search.beforeRead(ctx, p); err != nil {
		return nil, c.overlay.snapErr("read", p, err)
	}
	data, err := c.overlay.ReadFile(ctx, name)
	c.r.noteConflict(err)
	return data, err
}

// readAll reads rd to its end, within max_file_bytes.
func (c *cmdFS) readAll(ctx context.Context, rd io.Reader, p string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(rd, c.r.sh.cfg.MaxFileBytes+1))
	if err != nil {
		return nil, pathErr("read", p, err)
	}
	if int64(len(data)) > c.r.sh.cfg.MaxFileBytes {
		return nil, pathErr("read", p, errTooLarge)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return data, nil
}

func (c *cmdFS) stdin() io.Reader {
	if c.env.Stdin == nil {
		return strings.NewReader("")
	}
	return c.env.Stdin
}

// WriteFile implements commands.FS.
func (c *cmdFS) WriteFile(ctx context.Context, name string, data []byte, appendData bool) error {
	p := clean(name)
	if dev, ok := c.dev(p); ok {
		var w io.Writer = io.Discard
		switch dev {
		case "stdout":
			w = c.env.Stdout
		case "stderr":
			w = c.env.Stderr
		case "stdin":
			return pathErr("write", p, fs.ErrPermission)
		}
		_, err := w.Write(data)
		return err
	}
	if _, ok := c.r.procFile(p); ok {
		return pathErr("write", p, fs.ErrPermission)
	}
	err := c.overlay.WriteFile(ctx, name, data, appendData)
	c.r.noteConflict(err)
	return err
}

// Stat implements commands.FS.
func (c *cmdFS) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	p := clean(name)
	if dev, ok := c.dev(p); ok {
		return info{name: dev}.asDevice(), nil
	}
	if data, ok := c.r.procFile(p); ok {
		return fifoInfo{info{name: path.Base(p), size: int64(len(data))}}, nil
	}
	fi, err := c.overlay.Stat(ctx, name)
	c.r.noteConflict(err)
	return fi, err
}

// fifoInfo is the FileInfo of the output of a <(…): a named pipe, as in bash.
type fifoInfo struct{ info }

func (fifoInfo) Mode() fs.FileMode { return fs.ModeNamedPipe | 0o600 }

// close ends the command's use of the FS.
func (c *cmdFS) close() {}

// output holds what a command writes to stdout and stderr, within the answer budget counted
// as sent.
type output struct {
	mu        sync.Mutex
	budget    int64
	used      int64
	size      func(string) int64
	out, err  bytes.Buffer
	truncated bool
}

// errOutputFull is what a write past the answer budget gets: the command stops, as on SIGPIPE.
var errOutputFull = errors.New("file_shell: the answer's output budget is used up")

func (o *output) stdout() io.Writer { return streamWriter{o, &o.out} }
func (o *output) stderr() io.Writer { return streamWriter{o, &o.err} }

// streamWriter is one of the two streams of an output.
type streamWriter struct {
	o   *output
	buf *bytes.Buffer
}

func (w streamWriter) Write(p []byte) (int, error) {
	o := w.o
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.truncated {
		return 0, errOutputFull
	}
	n := o.size(string(p))
	if o.used+n <= o.budget {
		o.used += n
		w.buf.Write(p)
		return len(p), nil
	}
	// Keep the longest prefix that fits, cut at a character boundary.
	keep := 0
	for keep < len(p) {
		next := keep + 1
		for next < len(p) && p[next]&0xC0 == 0x80 {
			next++
		}
		c := o.size(string(p[keep:next]))
		if o.used+c > o.budget {
			break
		}
		o.used += c
		keep = next
	}
	w.buf.Write(p[:keep])
	o.truncated = true
	return keep, errOutputFull
}

// newOutput returns an output of budget bytes as sent with encoding e.
func newOutput(budget int64, e agentfiles.AnswerEncoding) *output {
	return &output{budget: budget, size: func(s string) int64 { return int64(fileio.AnswerStringBytes(e, s)) }}
}

// result returns stdout and stderr as valid UTF-8, and whether and how they were cut.
func (o *output) result() (stdout, stderr string, truncated bool, note string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	stdout = strings.ToValidUTF8(o.out.String(), "\uFFFD")
	stderr = strings.ToValidUTF8(o.err.String(), "\uFFFD")
	if o.truncated {
		note = fmt.Sprintf("the output was cut at %d bytes as sent (shell_max_output_bytes) and the command's further writes failed; print less (head, sed -n '1,200p', grep -c), or write to a file and read it in parts", o.budget)
	}
	return stdout, stderr, o.truncated, note
}
