package commands

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// maxReadAll bounds what a command that needs its whole input at once (sort, tail, jq,
// diff, …) takes from standard input; files come whole from FS, whose size the project
// already bounds.
const maxReadAll = 256 << 20

// errTooLarge is the error of an input past maxReadAll.
var errTooLarge = fmt.Errorf("input too large (over %d MiB)", maxReadAll>>20)

// cmdIO carries one command's name and streams, with the helpers every command uses.
type cmdIO struct {
	ctx  context.Context
	env  *Env
	name string
	out  *bufio.Writer
	// failed is set when a write to Stdout failed: the command must stop.
	failed bool
}

func newIO(ctx context.Context, env *Env, name string) *cmdIO {
	w := env.Stdout
	if w == nil {
		w = io.Discard
	}
	return &cmdIO{ctx: ctx, env: env, name: name, out: bufio.NewWriterSize(w, 32<<10)}
}

// write writes p to stdout; it reports false once a write failed.
func (c *cmdIO) write(p []byte) bool {
	if c.failed {
		return false
	}
	if _, err := c.out.Write(p); err != nil {
		c.failed = true
		return false
	}
	return true
}

func (c *cmdIO) writeString(s string) bool {
	if c.failed {
		return false
	}
	if _, err := c.out.WriteString(s); err != nil {
		c.failed = true
		return false
	}
	return true
}

func (c *cmdIO) printf(format string, args ...any) bool {
	if c.failed {
		return false
	}
	if _, err := fmt.Fprintf(c.out, format, args...); err != nil {
		c.failed = true
		return false
	}
	return true
}

// flush writes what is buffered; it reports false when a write failed.
func (c *cmdIO) flush() bool {
	if c.failed {
		return false
	}
	if err := c.out.Flush(); err != nil {
		c.failed = true
		return false
	}
	return true
}

// done flushes stdout and returns status, or 1 when a write failed (as SIGPIPE would end
// the command), or 130 when the context ended.
func (c *cmdIO) done(status int) int {
	if c.ctx.Err() != nil {
		return 130
	}
	if !c.flush() {
		if status == 0 {
			return 1
		}
	}
	return status
}

// errorf prints "name: message" on stderr.
func (c *cmdIO) errorf(format string, args ...any) {
	c.flush()
	if c.env.Stderr == nil {
		return
	}
	fmt.Fprintf(c.env.Stderr, "%s: %s\n", c.name, fmt.Sprintf(format, args...))
}

// usage prints a usage error the way GNU tools do and returns status.
func (c *cmdIO) usage(err error, status int) int {
	var u *usageError
	if errors.As(err, &u) {
		if u.msg != "" {
			c.errorf("%s", u.msg)
		}
	} else {
		c.errorf("%v", err)
	}
	if c.env.Stderr != nil {
		fmt.Fprintf(c.env.Stderr, "Try '%s --help' for more information.\n", c.name)
	}
	return status
}

// stopped reports whether the context ended or stdout failed: a loop must stop.
func (c *cmdIO) stopped() bool { return c.failed || c.ctx.Err() != nil }

// errText is GNU's text for an error from FS.
func errText(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, errIsDir):
		return "Is a directory"
	case errors.Is(err, errNotDir):
		return "Not a directory"
	case errors.Is(err, fs.ErrExist):
		return "File exists"
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied"
	case errors.Is(err, fs.ErrInvalid):
		return "Invalid argument"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

var (
	errIsDir  = errors.New("is a directory")
	errNotDir = errors.New("not a directory")
)

// readFile reads the file operand name ("-" is stdin, read whole up to maxReadAll). A
// directory gives errIsDir; a path through a file errNotDir.
func (c *cmdIO) readFile(name string) ([]byte, error) {
	if name == "-" {
		return readAllBounded(c.ctx, c.env.Stdin)
	}
	if name == "" {
		return nil, fs.ErrNotExist // "" names no file, as for open(2)
	}
	return c.readPath(c.env.Abs(name))
}

func (c *cmdIO) readPath(abs string) ([]byte, error) {
	data, err := c.env.FS.ReadFile(c.ctx, abs)
	if err == nil {
		return data, nil
	}
	return nil, c.classify(abs, err)
}

// classify turns fs.ErrInvalid from FS into errIsDir or errNotDir by looking at what abs is.
func (c *cmdIO) classify(abs string, err error) error {
	if !errors.Is(err, fs.ErrInvalid) {
		return err
	}
	if fi, serr := c.env.FS.Stat(c.ctx, abs); serr == nil && fi.IsDir() {
		return errIsDir
	}
	return errNotDir
}

// open returns a reader over the file operand name: stdin streams, a file is read whole.
func (c *cmdIO) open(name string) (io.Reader, error) {
	if name == "-" {
		if c.env.Stdin == nil {
			return strings.NewReader(""), nil
		}
		return c.env.Stdin, nil
	}
	data, err := c.readPath(c.env.Abs(name))
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(data), nil
}

func readAllBounded(ctx context.Context, r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	var buf bytes.Buffer
	chunk := make([]byte, 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := r.Read(chunk)
		buf.Write(chunk[:n])
		if buf.Len() > maxReadAll {
			return nil, errTooLarge
		}
		if err == io.EOF {
			return buf.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// lineReader reads lines (with their '\n', the last one possibly without) and checks ctx
// every few thousand lines.
type lineReader struct {
	ctx context.Context
	r   *bufio.Reader
	n   int
	err error
}

func newLineReader(ctx context.Context, r io.Reader) *lineReader {
	return &lineReader{ctx: ctx, r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line, or nil at the end (or on an error, kept in err).
func (l *lineReader) next() []byte {
	l.n++
	if l.n&1023 == 0 {
		if err := l.ctx.Err(); err != nil {
			l.err = err
			return nil
		}
	}
	line, err := l.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		full := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = l.r.ReadSlice('\n')
			full = append(full, line...)
			if len(full) > maxReadAll {
				l.err = errTooLarge
				return nil
			}
		}
		line = full
	}
	if err != nil && err != io.EOF {
		l.err = err
		return nil
	}
	if len(line) == 0 {
		return nil
	}
	return line
}

// splitLines splits data into lines, each with its '\n' (the last may lack one).
func splitLines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, data)
			break
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}

// quote is coreutils' quote() in the C locale (shell-escape-always): 'name', with
// $'\ooo' for bytes that are not printable ASCII.
func quote(s string) string { return shellQuote(s, true) }

// quotef is coreutils' quotef(): the name as it is when it needs no quoting.
func quotef(s string) string { return shellQuote(s, false) }

func shellQuote(s string, always bool) string {
	needs := s == ""
	for i := 0; i < len(s) && !needs; i++ {
		b := s[i]
		switch {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		case strings.IndexByte("%+,-./:=@_^", b) >= 0:
		case (b == '~' || b == '#') && i > 0:
		default:
			needs = true
		}
	}
	if !needs && !always {
		return s
	}
	var sb strings.Builder
	inQuote := false
	open := func() {
		if !inQuote {
			sb.WriteByte('\'')
			inQuote = true
		}
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b == '\'':
			if inQuote {
				sb.WriteByte('\'')
				inQuote = false
			}
			sb.WriteString(`\'`)
		case b < 0x20 || b >= 0x7f:
			if inQuote {
				sb.WriteByte('\'')
				inQuote = false
			}
			sb.WriteString("$'")
			for ; i < len(s) && (s[i] < 0x20 || s[i] >= 0x7f); i++ {
				switch s[i] {
				case '\t':
					sb.WriteString(`\t`)
				case '\n':
					sb.WriteString(`\n`)
				default:
					fmt.Fprintf(&sb, `\%03o`, s[i])
				}
			}
			i--
			sb.WriteByte('\'')
		default:
			open()
			sb.WriteByte(b)
		}
	}
	if inQuote {
		sb.WriteByte('\'')
	}
	if sb.Len() == 0 {
		return "''"
	}
	return sb.String()
}
