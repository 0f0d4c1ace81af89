package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"
)

// runJq is jq through gojq: -r -j -c -n -s -e -S --tab --indent N --arg --argjson
// --slurpfile? no; files or stdin. No environment ($ENV and env are empty) and no modules.
func runJq(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "jq")
	var filter string
	haveFilter := false
	var files []string
	raw, join, compact, nullInput, slurp, exitStatus, sortKeys, tab, asciiOut := false, false, false, false, false, false, false, false, false
	indent := 2
	var varNames []string
	var varValues []any
	named := map[string]any{}
	positionalMode := ""
	var positional []any
	rawInput := false
	for i := 1; i < len(args); i++ {
		a := args[i]
		if haveFilter && (!strings.HasPrefix(a, "-") || a == "-") {
			switch positionalMode {
			case "--args":
				positional = append(positional, a)
			case "--jsonargs":
				v, err := decodeJSONValue(a)
				if err != nil {
					c.errorf("Invalid JSON text passed to --jsonargs")
					return 2
				}
				positional = append(positional, v)
			default:
				files = append(files, a)
			}
			continue
		}
		need := func(n int) bool {
			if i+n >= len(args) {
				c.errorf("%s takes %d parameter(s)", a, n)
				return false
			}
			return true
		}
		switch {
		case a == "--":
			rest := args[i+1:]
			if !haveFilter && len(rest) > 0 {
				filter, haveFilter, rest = rest[0], true, rest[1:]
			}
			files = append(files, rest...)
			i = len(args)
		case a == "--arg" || a == "--argjson" || a == "--rawfile" || a == "--slurpfile":
			if !need(2) {
				return 2
			}
			name, val := args[i+1], args[i+2]
			i += 2
			var v any
			switch a {
			case "--arg":
				v = val
			case "--argjson":
				var err error
				if v, err = decodeJSONValue(val); err != nil {
					c.errorf("Invalid JSON text passed to --argjson")
					return 2
				}
			default:
				// The file comes through FS, as every other input.
				data, err := c.readFile(val)
				if err != nil {
					c.errorf("error: Could not open %s: %s", val, errText(err))
					return 2
				}
				if a == "--rawfile" {
					v = string(data)
				} else {
					var all []any
					dec := json.NewDecoder(bytes.NewReader(data))
					for {
						var x any
						if err := dec.Decode(&x); err == io.EOF {
							break
						} else if err != nil {
							c.errorf("Bad JSON in --slurpfile %s %s: %s", name, val, err)
							return 2
						}
						all = append(all, x)
					}
					if all == nil {
						all = []any{}
					}
					v = all
				}
			}
			varNames = append(varNames, "$"+name)
			varValues = append(varValues, v)
			named[name] = v
		case a == "--args" || a == "--jsonargs":
			// The remaining operands after the filter are values of $ARGS.positional.
			positionalMode = a
		case a == "--indent":
			if !need(1) {
				return 2
			}
			n, err := strconv.Atoi(args[i+1])
			if err != nil || n < 0 || n > 7 {
				c.errorf("Cannot indent more than 7 characters")
				return 2
			}
			indent = n
			i++
		case a == "--tab":
			tab = true
		case strings.HasPrefix(a, "--"):
			switch a {
			case "--raw-output":
				raw = true
			case "--join-output":
				raw, join = true, true
			case "--compact-output":
				compact = true
			case "--null-input":
				nullInput = true
			case "--slurp":
				slurp = true
			case "--exit-status":
				exitStatus = true
			case "--sort-keys":
				sortKeys = true
			case "--ascii-output":
				asciiOut = true
			case "--raw-input":
				rawInput = true
			case "--monochrome-output", "--color-output", "--unbuffered", "--seq", "--stream":
			default:
				c.errorf("Unknown option: %s", a)
				usageJq(env)
				return 2
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for _, f := range a[1:] {
				switch f {
				case 'r':
					raw = true
				case 'j':
					raw, join = true, true
				case 'c':
					compact = true
				case 'n':
					nullInput = true
				case 's':
					slurp = true
				case 'e':
					exitStatus = true
				case 'S':
					sortKeys = true
				case 'a':
					asciiOut = true
				case 'R':
					rawInput = true
				case 'M', 'C':
				default:
					c.errorf("Unknown option: %s", a)
					usageJq(env)
					return 2
				}
			}
		default:
			filter, haveFilter = a, true
		}
	}
	_ = sortKeys // gojq's objects are maps: keys always print sorted (see the package doc)
	if !haveFilter {
		// jq reads "." when it is given no filter and its standard streams are not terminals.
		filter = "."
	}
	q, err := gojq.Parse(filter)
	if err != nil {
		c.errorf("error: %s\njq: 1 compile error", err)
		return 3
	}
	// Inputs, read lazily so input and inputs see the ones not yet consumed.
	var sources []jqSource
	if len(files) == 0 {
		sources = append(sources, jqSource{name: "<stdin>", file: "-"})
	}
	for _, f := range files {
		sources = append(sources, jqSource{name: f, file: f})
	}
	in := &jqInputs{c: c, sources: sources, raw: rawInput, keepNewlines: rawInput && slurp}
	if positional == nil {
		positional = []any{}
	}
	varNames = append(varNames, "$ARGS")
	varValues = append(varValues, map[string]any{"positional": positional, "named": named})
	code, err := gojq.Compile(q,
		gojq.WithVariables(varNames),
		gojq.WithEnvironLoader(func() []string { return nil }),
		gojq.WithInputIter(in),
		// The file being read, as the command line names it ("<stdin>" for standard input,
		// null before any input, as jq 1.6): a project path, never a host one.
		gojq.WithFunction("input_filename", 0, 0, func(any, []any) any {
			if in.name == "" {
				return nil
			}
			return in.name
		}),
	)
	if err != nil {
		c.errorf("error: %s\njq: 1 compile error", err)
		return 3
	}
	enc := &jqEncoder{indent: indent, tab: tab, compact: compact, ascii: asciiOut}
	status := 0
	var last any
	outputs := 0
	runOne := func(v any) bool {
		iter := code.RunWithContext(ctx, v, varValues...)
		for {
			out, ok := iter.Next()
			if !ok {
				return true
			}
			if err, isErr := out.(error); isErr {
				var halt *gojq.HaltError
				if errors.As(err, &halt) {
					if s, isStr := halt.Value().(string); isStr {
						io.WriteString(env.Stderr, s)
					} else if halt.Value() != nil {
						b, _ := gojq.Marshal(halt.Value())
						fmt.Fprintf(env.Stderr, "%s\n", b)
					}
					status = halt.ExitCode()
					return false
				}
				if ctx.Err() != nil {
					return false
				}
				c.errorf("error (at %s): %s", in.where(), err)
				status = 5
				return true
			}
			last = out
			outputs++
			if s, isStr := out.(string); raw && isStr {
				c.writeString(s)
			} else {
				c.write(enc.encode(out))
			}
			if !join {
				c.writeString("\n")
			}
			if c.stopped() {
				return false
			}
		}
	}
	switch {
	case nullInput:
		runOne(nil)
	case slurp:
		var all []any
		for {
			v, ok := in.Next()
			if !ok {
				break
			}
			if err, isErr := v.(error); isErr {
				c.flush()
				fmt.Fprintf(stderrOf(env), "%s\n", err)
				return 4
			}
			all = append(all, v)
		}
		if in.failed {
			status = 2
		} else if rawInput {
			var sb strings.Builder
			for _, v := range all {
				sb.WriteString(v.(string))
			}
			runOne(sb.String())
		} else {
			if all == nil {
				all = []any{}
			}
			runOne(all)
		}
	default:
		for {
			v, ok := in.Next()
			if !ok {
				break
			}
			if err, isErr := v.(error); isErr {
				c.flush()
				fmt.Fprintf(stderrOf(env), "%s\n", err)
				status = 4 // what Debian's jq 1.6 answers for input that is not JSON
				break
			}
			if !runOne(v) {
				break
			}
		}
	}
	if in.failed && status == 0 {
		status = 2
		if in.badJSON {
			status = 4
		}
	}
	if exitStatus && status == 0 {
		switch {
		case outputs == 0:
			status = 4
		case last == nil || last == false:
			status = 1
		}
	}
	return c.done(status)
}

func usageJq(env *Env) {
	if env.Stderr != nil {
		io.WriteString(env.Stderr, "Usage:\tjq [OPTIONS] FILTER [FILES...]\n\tjq [OPTIONS] --args FILTER [ARGUMENTS...]\n\tjq [OPTIONS] --jsonargs FILTER [JSON_VALUES...]\n\nUse jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://stedolan.github.io/jq\n")
	}
}

func decodeJSONValue(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return normalizeJSON(v), nil
}

// normalizeJSON turns encoding/json's values into gojq's: whole float64s stay float64
// (jq 1.6 keeps every number a double).
func normalizeJSON(v any) any { return v }

type jqSource struct{ name, file string }

// jqInputs yields the JSON values of the input files in turn (gojq's input and inputs
// read from it too).
type jqInputs struct {
	c       *cmdIO
	sources []jqSource
	cur     int
	dec     *json.Decoder
	lines   *lineReader
	raw     bool
	failed  bool
	badJSON bool
	// keepNewlines: -R -s reads the text whole.
	keepNewlines bool
	name         string
	count        int
}

func (in *jqInputs) where() string { return fmt.Sprintf("%s:%d", in.name, in.count) }

func (in *jqInputs) Next() (any, bool) {
	for {
		if in.dec == nil && in.lines == nil {
			if in.cur >= len(in.sources) {
				return nil, false
			}
			s := in.sources[in.cur]
			in.cur++
			var r io.Reader
			if s.file == "-" {
				r = in.c.env.Stdin
				if r == nil {
					r = strings.NewReader("")
				}
			} else {
				data, err := in.c.readPath(in.c.env.Abs(s.file))
				if err != nil {
					in.c.errorf("error: Could not open %s: %s", s.file, errText(err))
					in.failed = true
					continue
				}
				r = bytes.NewReader(data)
			}
			in.name, in.count = s.name, 0
			if in.raw {
				in.lines = newLineReader(in.c.ctx, r)
			} else {
				in.dec = json.NewDecoder(r)
			}
		}
		if in.raw {
			l := in.lines.next()
			if l == nil {
				in.lines = nil
				continue
			}
			if in.keepNewlines {
				return string(l), true
			}
			return strings.TrimSuffix(string(l), "\n"), true
		}
		var v any
		err := in.dec.Decode(&v)
		if err == io.EOF {
			in.dec = nil
			continue
		}
		if err != nil {
			in.dec = nil
			in.failed, in.badJSON = true, true
			return fmt.Errorf("parse error: %s", err), true
		}
		in.count++
		return normalizeJSON(v), true
	}
}

// jqEncoder prints values as jq does: two-space indentation (or --indent, --tab, -c).
type jqEncoder struct {
	indent       int
	tab, compact bool
	ascii        bool
	buf          bytes.Buffer
}

func (e *jqEncoder) encode(v any) []byte {
	e.buf.Reset()
	e.value(v, 0)
	return e.buf.Bytes()
}

func (e *jqEncoder) newline(depth int) {
	if e.compact {
		return
	}
	e.buf.WriteByte('\n')
	if e.tab {
		e.buf.WriteString(strings.Repeat("\t", depth))
	} else {
		e.buf.WriteString(strings.Repeat(" ", depth*e.indent))
	}
}

func (e *jqEncoder) value(v any, depth int) {
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			e.buf.WriteString("[]")
			return
		}
		e.buf.WriteByte('[')
		for i, el := range x {
			if i > 0 {
				e.buf.WriteByte(',')
			}
			e.newline(depth + 1)
			e.value(el, depth+1)
		}
		e.newline(depth)
		e.buf.WriteByte(']')
	case map[string]any:
		if len(x) == 0 {
			e.buf.WriteString("{}")
			return
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		e.buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				e.buf.WriteByte(',')
			}
			e.newline(depth + 1)
			e.scalar(k)
			e.buf.WriteByte(':')
			if !e.compact {
				e.buf.WriteByte(' ')
			}
			e.value(x[k], depth+1)
		}
		e.newline(depth)
		e.buf.WriteByte('}')
	default:
		e.scalar(v)
	}
}

func (e *jqEncoder) scalar(v any) {
	switch n := v.(type) {
	case float64:
		e.buf.WriteString(jqNumber(n))
		return
	case int:
		e.buf.WriteString(jqNumber(float64(n)))
		return
	case *big.Int:
		// jq 1.6 holds every number as a double.
		f, _ := new(big.Float).SetInt(n).Float64()
		e.buf.WriteString(jqNumber(f))
		return
	}
	b, err := gojq.Marshal(v)
	if err != nil {
		b = []byte("null")
	}
	if e.ascii {
		b = asciiEscape(b)
	}
	e.buf.Write(b)
}

// jqNumber prints a number as jq 1.6 does (its jvp_dtoa_fmt): the shortest digits that read
// back the same, in exponential form when the decimal point is 4 or more places before
// them or more than 15 places past them; NaN as null, infinities as the largest double.
func jqNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "null"
	case math.IsInf(f, 1):
		f = math.MaxFloat64
	case math.IsInf(f, -1):
		f = -math.MaxFloat64
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	decpt := x + 1
	nd := len(digits)
	if decpt <= -4 || decpt > nd+15 {
		out := digits[:1]
		if nd > 1 {
			out += "." + digits[1:]
		}
		es := "+"
		if x < 0 {
			es, x = "-", -x
		}
		return fmt.Sprintf("%s%se%s%02d", sign, out, es, x)
	}
	switch {
	case decpt <= 0:
		return sign + "0." + strings.Repeat("0", -decpt) + digits
	case decpt >= nd:
		return sign + digits + strings.Repeat("0", decpt-nd)
	}
	return sign + digits[:decpt] + "." + digits[decpt:]
}

func asciiEscape(b []byte) []byte {
	var out bytes.Buffer
	for _, r := range string(b) {
		if r < 0x80 {
			out.WriteRune(r)
			continue
		}
		if r > 0xffff {
			r -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			continue
		}
		fmt.Fprintf(&out, `\u%04x`, r)
	}
	return out.Bytes()
}
