package commands

import (
	"context"
	"errors"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/benhoyt/goawk/interp"
	"github.com/benhoyt/goawk/parser"
)

// filenameFunc is the Go function the awk program calls to learn FILENAME: goawk reads
// each input file as "-" (standard input), which here is a reader over the files' contents
// in turn, so the name comes from that reader.
const filenameFunc = "__agentfiles_filename"

var awkAssign = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// runAwk is awk through goawk (POSIX awk with GNU's common extensions): -F, -v, -f, files or
// stdin, var=value operands. Files are read through FS; writing files (print > "f"),
// getline from files or commands, pipes and system() are refused: the program sees nothing
// of the host.
func runAwk(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "awk")
	var vars []string
	var progFiles []string
	fs := ""
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		take := func(flag string) (string, bool) {
			if len(a) > len(flag) {
				return a[len(flag):], true
			}
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			c.errorf("option requires an argument -- %s", strings.TrimPrefix(flag, "-"))
			return "", false
		}
		switch {
		case strings.HasPrefix(a, "-F"):
			v, ok := take("-F")
			if !ok {
				return 2
			}
			if v == "t" {
				v = "\t"
			}
			fs = v
		case strings.HasPrefix(a, "-v"):
			v, ok := take("-v")
			if !ok {
				return 2
			}
			name, val, found := strings.Cut(v, "=")
			if !found {
				c.errorf("invalid -v argument %s", quote(v))
				return 2
			}
			val = awkUnescape(val)
			vars = append(vars, name, val)
		case strings.HasPrefix(a, "-f"):
			v, ok := take("-f")
			if !ok {
				return 2
			}
			progFiles = append(progFiles, v)
		case a == "--posix" || a == "--traditional" || a == "-P":
		default:
			c.errorf("unknown option %s", a)
			return 2
		}
	}
	var src string
	if len(progFiles) > 0 {
		for _, f := range progFiles {
			data, err := c.readFile(f)
			if err != nil {
				c.errorf("can't open file %s: %s", f, errText(err))
				return 2
			}
			src += string(data) + "\n"
		}
	} else {
		if i >= len(args) {
			if env.Stderr != nil {
				io.WriteString(env.Stderr, "usage: awk [-F fs][-v var=value][prog | -f progfile][file ...]\n")
			}
			return 2
		}
		src = args[i]
		i++
	}
	operands := args[i:]
	funcs := map[string]any{}
	files := &awkFiles{}
	funcs[filenameFunc] = files.current
	config := &parser.ParserConfig{Funcs: funcs}
	prog, err := parser.ParseProgram([]byte(src), config)
	if err != nil {
		c.errorf("%s", err)
		return 2
	}
	// Read every file operand through FS now (awk reads them all anyway); the program
	// sees them as "-", one after another.
	var awkArgs []string
	status := 0
	for _, op := range operands {
		if awkAssign.MatchString(op) {
			awkArgs = append(awkArgs, op)
			continue
		}
		if op == "-" || op == "/dev/stdin" {
			files.add("-", nil, true)
			awkArgs = append(awkArgs, "-")
			continue
		}
		data, err := c.readPath(env.Abs(op))
		if err != nil {
			// As the one true awk: the files before it are read, then awk stops.
			files.fail(op, err)
			awkArgs = append(awkArgs, "-")
			break
		}
		files.add(op, data, false)
		awkArgs = append(awkArgs, "-")
	}
	if len(prog.Actions) > 0 || len(prog.End) > 0 {
		if len(files.names) > 0 {
			// FILENAME is the operand's name: set it where each file starts.
			prog, err = parser.ParseProgram([]byte("FNR==1{FILENAME="+filenameFunc+"()}\n"+src), config)
			if err != nil {
				c.errorf("%s", err)
				return 2
			}
		}
	}
	files.stdin = env.Stdin
	stdout := &awkWriter{c: c}
	cfg := &interp.Config{
		Stdin:        files,
		Output:       stdout,
		Error:        stderrOf(env),
		Argv0:        "awk",
		Args:         awkArgs,
		Vars:         vars,
		Funcs:        funcs,
		NoExec:       true,
		NoFileWrites: true,
		NoFileReads:  true,
		Environ:      []string{},
	}
	if fs != "" {
		cfg.Vars = append(cfg.Vars, "FS", fs)
	}
	if len(operands) > 0 && len(files.names) == 0 && len(awkArgs) > 0 {
		// Only assignments: awk still reads standard input.
		files.add("-", nil, true)
		cfg.Args = append(cfg.Args, "-")
	}
	it, err := interp.New(prog)
	if err != nil {
		c.errorf("%s", err)
		return 2
	}
	code, err := it.ExecuteContext(ctx, cfg)
	c.flush()
	if err != nil {
		if ctx.Err() != nil {
			return 130
		}
		if errors.Is(err, errAwkOutput) {
			return 1
		}
		var open *awkOpenError
		if errors.As(err, &open) {
			c.errorf("can't open file %s", open.name)
			return 2
		}
		c.errorf("%s", strings.TrimPrefix(err.Error(), "runtime error: "))
		return 2
	}
	if status != 0 {
		return status
	}
	return c.done(code)
}

func stderrOf(env *Env) io.Writer {
	if env.Stderr == nil {
		return io.Discard
	}
	return env.Stderr
}

var errAwkOutput = errors.New("output failed")

type awkWriter struct{ c *cmdIO }

func (w *awkWriter) Write(p []byte) (int, error) {
	if w.c.ctx.Err() != nil {
		return 0, w.c.ctx.Err()
	}
	if !w.c.write(p) {
		return 0, errAwkOutput
	}
	return len(p), nil
}

// awkFiles is goawk's standard input: the contents of the file operands in turn, each
// ending with io.EOF so goawk moves to its next "-" argument.
type awkFiles struct {
	mu     sync.Mutex
	names  []string
	data   [][]byte
	isIn   []bool // standard input itself
	errs   []error
	stdin  io.Reader
	cur    int  // the segment being read
	atEOF  bool // the current segment returned io.EOF: the next Read starts the next one
	offset int
}

func (f *awkFiles) add(name string, data []byte, stdin bool) {
	f.names = append(f.names, name)
	f.data = append(f.data, data)
	f.isIn = append(f.isIn, stdin)
	f.errs = append(f.errs, nil)
}

// fail adds a file that could not be read: reading reaches it and fails, ending awk.
func (f *awkFiles) fail(name string, err error) {
	f.add(name, nil, false)
	f.errs[len(f.errs)-1] = &awkOpenError{name: name, err: err}
}

// awkOpenError is a file operand that could not be read.
type awkOpenError struct {
	name string
	err  error
}

func (e *awkOpenError) Error() string { return "can't open file " + e.name + ": " + errText(e.err) }

func (f *awkFiles) current() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cur < len(f.names) {
		return f.names[f.cur] // "-" for standard input named on the command line
	}
	if n := len(f.names); n > 0 {
		return f.names[n-1]
	}
	return ""
}

func (f *awkFiles) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.atEOF {
		f.atEOF = false
		f.cur++
		f.offset = 0
	}
	if f.cur >= len(f.names) {
		if len(f.names) == 0 && f.stdin != nil {
			return f.stdin.Read(p)
		}
		return 0, io.EOF
	}
	if f.isIn[f.cur] {
		if f.stdin == nil {
			f.atEOF = true
			return 0, io.EOF
		}
		n, err := f.stdin.Read(p)
		if err == io.EOF {
			f.atEOF = true
		}
		return n, err
	}
	if err := f.errs[f.cur]; err != nil {
		return 0, err
	}
	d := f.data[f.cur][f.offset:]
	if len(d) == 0 {
		f.atEOF = true
		return 0, io.EOF
	}
	n := copy(p, d)
	f.offset += n
	return n, nil
}

// awkUnescape processes the escapes awk reads in -v values: \n \t \r \\ \" \/ \a \b \f
// \v and octal \ooo.
func awkUnescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			sb.WriteByte(s[i])
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			sb.WriteByte('\n')
		case 't':
			sb.WriteByte('\t')
		case 'r':
			sb.WriteByte('\r')
		case 'a':
			sb.WriteByte('\a')
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'v':
			sb.WriteByte('\v')
		case '\\', '"', '/':
			sb.WriteByte(e)
		default:
			if e >= '0' && e <= '7' {
				v := 0
				k := 0
				for ; k < 3 && i < len(s) && s[i] >= '0' && s[i] <= '7'; k++ {
					v = v*8 + int(s[i]-'0')
					i++
				}
				i--
				sb.WriteByte(byte(v))
				continue
			}
			sb.WriteByte('\\')
			sb.WriteByte(e)
		}
	}
	return sb.String()
}
