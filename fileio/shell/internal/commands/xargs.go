package commands

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
)

// xargsMaxChars is the command-line size xargs builds up to (GNU's default, 128 KiB).
const xargsMaxChars = 128 << 10

// runXargs is xargs: -0 -d -n -L -I/-i -r -t -a -E -s -x -P (run one at a time), through
// Env.Exec.
func runXargs(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "xargs")
	// -i takes an optional attached argument; GNU getopt would too.
	var conv []string
	for i, a := range args[1:] {
		if a == "-i" {
			conv = append(conv, "-I", "{}")
			continue
		}
		if strings.HasPrefix(a, "-i") && len(a) > 2 && !strings.HasPrefix(a, "--") {
			conv = append(conv, "-I", a[2:])
			continue
		}
		if !strings.HasPrefix(a, "-") {
			conv = append(conv, args[1+i:]...)
			break
		}
		conv = append(conv, a)
	}
	opts, cmd, err := optSpec{short: "0d:n:L:l:I:rta:E:e:s:xP:p", stopAtOperand: true,
		long: []string{"null|0", "delimiter=|d", "max-args=|n", "max-lines=|L", "replace=|I", "no-run-if-empty|r",
			"verbose|t", "arg-file=|a", "eof=|E", "max-chars=|s", "exit|x", "max-procs=|P", "interactive|p"}}.parse(conv)
	if err != nil {
		return c.usage(err, 1)
	}
	var delim byte
	useDelim := false
	maxArgs, maxLines := 0, 0
	replace := ""
	noRunEmpty, trace := false, false
	argFile, eof := "", ""
	maxChars := xargsMaxChars
	for _, o := range opts {
		switch o.key {
		case "0":
			delim, useDelim = 0, true
		case "d":
			d, ok := parseXargsDelim(o.val)
			if !ok {
				c.errorf("invalid input delimiter specification %s: the delimiter must be either a single character or an escape sequence starting with \\.", o.val)
				return 1
			}
			delim, useDelim = d, true
		case "L", "l":
			if replace != "" {
				c.errorf("warning: options --replace and -L are mutually exclusive, ignoring previous --replace value")
				replace = ""
			}
			if maxArgs > 0 {
				c.errorf("warning: options --max-args and -L are mutually exclusive, ignoring previous --max-args value")
				maxArgs = 0
			}
			fallthrough
		case "n":
			if o.key == "n" && replace != "" && o.val != "1" {
				c.errorf("warning: options --replace and --max-args/-n are mutually exclusive, ignoring previous --replace value")
				replace = ""
			}
			if o.key == "n" && maxLines > 0 {
				c.errorf("warning: options --max-lines and --max-args/-n are mutually exclusive, ignoring previous --max-lines value")
				maxLines = 0
			}
			fallthrough
		case "s", "P":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 0 || (n == 0 && o.key != "P") {
				c.errorf("invalid number %s for -%s option", quote(o.val), o.key)
				return c.usage(&usageError{}, 1)
			}
			switch o.key {
			case "n":
				maxArgs = n
			case "L", "l":
				maxLines = n
			case "s":
				maxChars = n
			}
		case "I":
			if maxArgs > 0 {
				c.errorf("warning: options --max-args and --replace/-I/-i are mutually exclusive, ignoring previous --max-args value")
				maxArgs = 0
			}
			if maxLines > 0 {
				c.errorf("warning: options --max-lines and --replace/-I/-i are mutually exclusive, ignoring previous --max-lines value")
				maxLines = 0
			}
			replace = o.val
		case "r":
			noRunEmpty = true
		case "t":
			trace = true
		case "a":
			argFile = o.val
		case "E", "e":
			eof = o.val
		}
	}
	if len(cmd) == 0 {
		cmd = []string{"echo"}
	}
	if env.Exec == nil {
		c.errorf("%s: cannot run commands here", cmd[0])
		return 126
	}
	var in io.Reader = env.Stdin
	if argFile != "" {
		data, err := c.readFile(argFile)
		if err != nil {
			c.errorf("Cannot open input file %s: %s", quote(argFile), errText(err))
			return 1
		}
		in = bytes.NewReader(data)
	}
	if in == nil {
		in = strings.NewReader("")
	}
	// Read the items: each with the input line it ended (for -L).
	items, lineEnds, err := readXargsItems(ctx, in, useDelim, delim, replace != "", eof)
	if err != nil {
		c.errorf("%s", err)
		return 1
	}
	// An argument ends at a NUL byte, as a C string does; GNU xargs warns (once) when it
	// splits the input itself.
	if !useDelim {
		for _, it := range items {
			if strings.IndexByte(it, 0) >= 0 {
				c.errorf("WARNING: a NUL character occurred in the input.  It cannot be passed through in the argument list.  Did you mean to use the --null option?")
				break
			}
		}
	}
	cut := func(argv []string) []string {
		for k, a := range argv {
			if i := strings.IndexByte(a, 0); i >= 0 {
				argv[k] = a[:i]
			}
		}
		return argv
	}
	status := 0
	run := func(argv []string) bool {
		argv = cut(argv)
		if trace && env.Stderr != nil {
			io.WriteString(env.Stderr, strings.Join(argv, " ")+"\n")
		}
		c.flush()
		stdout := env.Stdout
		if stdout == nil {
			stdout = io.Discard
		}
		st := env.Exec(ctx, argv, strings.NewReader(""), stdout, env.Stderr)
		switch {
		case ctx.Err() != nil:
			status = 130
			return false
		case st == 255:
			c.errorf("%s: exited with status 255; aborting", argv[0])
			status = 124
			return false
		case st == 126 || st == 127:
			status = st
			return false
		case st != 0:
			status = 123
		}
		return true
	}
	if replace != "" {
		for _, item := range items {
			argv := make([]string, len(cmd))
			for i, a := range cmd {
				argv[i] = strings.ReplaceAll(a, replace, item)
			}
			if !run(argv) {
				break
			}
		}
		return c.done(status)
	}
	if len(items) == 0 {
		if !noRunEmpty {
			run(cmd)
		}
		return c.done(status)
	}
	base := 0
	for _, a := range cmd {
		base += len(a) + 1
	}
	for start := 0; start < len(items); {
		end := start
		size := base
		lines := 0
		for end < len(items) {
			if maxArgs > 0 && end-start >= maxArgs {
				break
			}
			if size+len(items[end])+1 > maxChars && end > start {
				break
			}
			size += len(items[end]) + 1
			end++
			lines += lineEnds[end-1]
			if maxLines > 0 && lines >= maxLines {
				break
			}
		}
		argv := append(append([]string(nil), cmd...), items[start:end]...)
		if !run(argv) {
			break
		}
		start = end
	}
	return c.done(status)
}

func parseXargsDelim(s string) (byte, bool) {
	if len(s) == 1 {
		return s[0], true
	}
	switch s {
	case `\n`:
		return '\n', true
	case `\t`:
		return '\t', true
	case `\0`:
		return 0, true
	case `\\`:
		return '\\', true
	}
	if strings.HasPrefix(s, `\x`) {
		v, err := strconv.ParseUint(s[2:], 16, 8)
		return byte(v), err == nil
	}
	if strings.HasPrefix(s, `\`) {
		v, err := strconv.ParseUint(s[1:], 8, 8)
		return byte(v), err == nil
	}
	return 0, false
}

// readXargsItems splits xargs' input: by delim when given; one line per item for -I;
// else blank-separated words with '…', "…" and backslash quoting, as GNU xargs.
//
// It also returns, for each argument, the input lines -L counts when the argument ends.
func readXargsItems(ctx context.Context, r io.Reader, useDelim bool, delim byte, lines bool, eof string) ([]string, []int, error) {
	data, err := readAllBounded(ctx, r)
	if err != nil {
		return nil, nil, err
	}
	var items []string
	var ends []int
	if useDelim {
		for _, p := range bytes.Split(data, []byte{delim}) {
			items = append(items, string(p))
			ends = append(ends, 1)
		}
		if n := len(items); n > 0 && items[n-1] == "" {
			items, ends = items[:n-1], ends[:n-1]
		}
		return items, ends, nil
	}
	if lines {
		// -I: a line is one argument; leading blanks go, quotes and backslashes still
		// quote.
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64<<10), maxReadAll)
		for sc.Scan() {
			l := strings.TrimLeft(sc.Text(), " \t")
			if l == "" {
				continue
			}
			arg, err := xargsUnquote(l)
			if err != nil {
				return nil, nil, err
			}
			if eof != "" && arg == eof {
				break
			}
			items = append(items, arg)
			ends = append(ends, 1)
		}
		return items, ends, nil
	}
	var cur []byte
	inItem := false
	var quote byte
	pending := 0 // lines counted since the last argument ended
	for i := 0; i < len(data); i++ {
		b := data[i]
		switch {
		case quote != 0:
			if b == quote {
				quote = 0
			} else if b == '\n' {
				which := "single"
				if quote == '"' {
					which = "double"
				}
				return nil, nil, errors.New("unmatched " + which + " quote; by default quotes are special to xargs unless you use the -0 option")
			} else {
				cur = append(cur, b)
			}
		case b == '\'' || b == '"':
			quote = b
			inItem = true
		case b == '\\' && i+1 < len(data):
			i++
			cur = append(cur, data[i])
			inItem = true
		case b == ' ' || b == '\t' || b == '\n':
			if inItem {
				if eof != "" && string(cur) == eof {
					return items, ends, nil
				}
			}
			// For -L, as GNU xargs: a newline counts a line only when it ends an argument
			// (after a blank, the line goes on; blank lines are no lines).
			if b == '\n' && inItem {
				pending++
			}
			if inItem {
				items = append(items, string(cur))
				ends = append(ends, pending)
				pending = 0
				cur, inItem = nil, false
			}
		default:
			cur = append(cur, b)
			inItem = true
		}
	}
	if quote != 0 {
		which := "single"
		if quote == '"' {
			which = "double"
		}
		return nil, nil, errors.New("unmatched " + which + " quote; by default quotes are special to xargs unless you use the -0 option")
	}
	if inItem {
		if !(eof != "" && string(cur) == eof) {
			items = append(items, string(cur))
			ends = append(ends, pending+1)
		}
	}
	return items, ends, nil
}

// xargsUnquote removes the quoting of one -I line: '…', "…" and backslashes.
func xargsUnquote(l string) (string, error) {
	var sb strings.Builder
	var quote byte
	for i := 0; i < len(l); i++ {
		b := l[i]
		switch {
		case quote != 0:
			if b == quote {
				quote = 0
			} else {
				sb.WriteByte(b)
			}
		case b == '\'' || b == '"':
			quote = b
		case b == '\\' && i+1 < len(l):
			i++
			sb.WriteByte(l[i])
		default:
			sb.WriteByte(b)
		}
	}
	if quote != 0 {
		which := "single"
		if quote == '"' {
			which = "double"
		}
		return "", errors.New("unmatched " + which + " quote; by default quotes are special to xargs unless you use the -0 option")
	}
	return sb.String(), nil
}
