package commands

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
)

type sortKey struct {
	startField, startChar int // 1-based; startChar 0 means the field's start
	endField, endChar     int // endField 0: end of line; endChar 0: end of field
	opts                  sortFlags
	startBlank, endBlank  bool // b given on that side
}

type sortFlags struct {
	numeric, general, human, version, reverse, fold, dict, ignoreNonprint, blanks, month bool
}

func (f sortFlags) any() bool {
	return f.numeric || f.general || f.human || f.version || f.reverse || f.fold || f.dict || f.ignoreNonprint || f.blanks || f.month
}

func (f *sortFlags) set(c byte) bool {
	switch c {
	case 'n':
		f.numeric = true
	case 'g':
		f.general = true
	case 'h':
		f.human = true
	case 'V':
		f.version = true
	case 'r':
		f.reverse = true
	case 'f':
		f.fold = true
	case 'd':
		f.dict = true
	case 'i':
		f.ignoreNonprint = true
	case 'b':
		f.blanks = true
	case 'M':
		f.month = true
	default:
		return false
	}
	return true
}

// runSort is sort: -b -d -f -g -h -i -n -r -V -M -k -t -u -s -o -c -C, C-locale compare.
func runSort(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "sort")
	opts, files, err := optSpec{short: "bdfghinrVMk:t:uso:cCmS:T:z",
		long: []string{"ignore-leading-blanks|b", "dictionary-order|d", "ignore-case|f", "general-numeric-sort|g",
			"human-numeric-sort|h", "ignore-nonprinting|i", "numeric-sort|n", "reverse|r", "version-sort|V", "month-sort|M",
			"key=|k", "field-separator=|t", "unique|u", "stable|s", "output=|o", "check?", "merge|m", "buffer-size=|S",
			"temporary-directory=|T", "parallel=", "zero-terminated|z", "sort="}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 2)
	}
	var global sortFlags
	var keys []sortKey
	sep := -1
	unique, stable, check, quietCheck := false, false, false, false
	output := ""
	for _, o := range opts {
		switch o.key {
		case "k":
			k, ok := parseSortKey(o.val)
			if !ok && strings.HasPrefix(o.val, "0") {
				c.errorf("field number is zero: invalid field specification %s", quote(o.val))
				return 2
			}
			if !ok {
				c.errorf("invalid number at field start: invalid count at start of %s", quote(o.val))
				return 2
			}
			keys = append(keys, k)
		case "t":
			if len(o.val) != 1 {
				if o.val == "" {
					c.errorf("empty tab")
				} else {
					c.errorf("multi-character tab %s", quote(o.val))
				}
				return 2
			}
			sep = int(o.val[0])
		case "u":
			unique = true
		case "s":
			stable = true
		case "o":
			output = o.val
		case "c", "check":
			check = true
			if o.val == "quiet" || o.val == "silent" {
				quietCheck = true
			}
		case "C":
			check, quietCheck = true, true
		case "z":
			c.errorf("-z (NUL-terminated lines) is not supported")
			return 2
		case "sort":
			switch o.val {
			case "numeric":
				global.numeric = true
			case "version":
				global.version = true
			case "general-numeric":
				global.general = true
			case "human-numeric":
				global.human = true
			case "month":
				global.month = true
			}
		case "m", "S", "T", "parallel":
		default:
			global.set(o.key[0])
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	var lines [][]byte
	for _, f := range files {
		data, err := c.readFile(f)
		if err != nil {
			c.errorf("cannot read: %s: %s", f, errText(err))
			if err == errIsDir {
				c.env.Stderr.Write(nil)
			}
			return 2
		}
		for _, l := range splitLines(data) {
			lines = append(lines, bytes.TrimSuffix(l, []byte("\n")))
		}
		if ctx.Err() != nil {
			return 130
		}
	}
	// As coreutils: one ordering per key (-d and -i count as one with -V); the global
	// options count where a key (or the whole line) takes them.
	checked := keyFlags(keys)
	inherits := len(keys) == 0
	for _, k := range keys {
		if !k.opts.any() {
			inherits = true
		}
	}
	if inherits {
		checked = append([]sortFlags{global}, checked...)
	}
	for _, f := range checked {
		if letters, bad := incompatible(f); bad {
			c.errorf("options '-%s' are incompatible", letters)
			return 2
		}
	}
	for i := range keys {
		if !keys[i].opts.any() {
			keys[i].opts = global
			keys[i].startBlank, keys[i].endBlank = global.blanks, global.blanks
		}
	}
	s := &sorter{keys: keys, global: global, sep: sep, lastResort: !stable && !unique}
	if check {
		for i := 1; i < len(lines); i++ {
			r := s.compare(lines[i-1], lines[i])
			if r > 0 || (unique && r == 0) {
				if !quietCheck {
					c.errorf("%s:%d: disorder: %s", files[0], i+1, lines[i])
				}
				return 1
			}
		}
		return 0
	}
	n := 0
	cmp := func(a, b []byte) int {
		n++
		if n&4095 == 0 && ctx.Err() != nil {
			return 0
		}
		return s.compare(a, b)
	}
	slices.SortStableFunc(lines, cmp)
	if ctx.Err() != nil {
		return 130
	}
	var out bytes.Buffer
	for i, l := range lines {
		if unique && i > 0 && s.compareKeys(lines[i-1], l) == 0 {
			continue
		}
		out.Write(l)
		out.WriteByte('\n')
	}
	if output != "" {
		if err := env.FS.WriteFile(ctx, env.Abs(output), out.Bytes(), false); err != nil {
			c.errorf("open failed: %s: %s", output, errText(err))
			return 2
		}
		return 0
	}
	c.write(out.Bytes())
	return c.done(0)
}

func keyFlags(keys []sortKey) []sortFlags {
	out := make([]sortFlags, len(keys))
	for i, k := range keys {
		out[i] = k.opts
	}
	return out
}

// incompatible reports whether f asks for more than one ordering, and the letters of its
// orderings as sort's message lists them.
func incompatible(f sortFlags) (string, bool) {
	n := 0
	for _, on := range []bool{f.numeric, f.general, f.human, f.month, f.version || f.dict || f.ignoreNonprint} {
		if on {
			n++
		}
	}
	if n < 2 {
		return "", false
	}
	var letters []byte
	for _, l := range []struct {
		on bool
		c  byte
	}{{f.dict, 'd'}, {f.general, 'g'}, {f.human, 'h'}, {f.ignoreNonprint, 'i'}, {f.month, 'M'}, {f.numeric, 'n'}, {f.version, 'V'}} {
		if l.on {
			letters = append(letters, l.c)
		}
	}
	return string(letters), true
}

// parseSortKey reads F[.C][OPTS][,F[.C][OPTS]].
func parseSortKey(s string) (sortKey, bool) {
	var k sortKey
	start, end, hasEnd := strings.Cut(s, ",")
	num := func(s string) (int, string, bool) {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, s, false
		}
		n, err := strconv.Atoi(s[:i])
		return n, s[i:], err == nil
	}
	var ok bool
	var rest string
	if k.startField, rest, ok = num(start); !ok || k.startField == 0 {
		return k, false
	}
	if strings.HasPrefix(rest, ".") {
		if k.startChar, rest, ok = num(rest[1:]); !ok || k.startChar == 0 {
			return k, false
		}
	}
	for i := 0; i < len(rest); i++ {
		if !k.opts.set(rest[i]) {
			return k, false
		}
		if rest[i] == 'b' {
			k.startBlank = true
		}
	}
	if hasEnd {
		if k.endField, rest, ok = num(end); !ok || k.endField == 0 {
			return k, false
		}
		if strings.HasPrefix(rest, ".") {
			if k.endChar, rest, ok = num(rest[1:]); !ok {
				return k, false
			}
		}
		for i := 0; i < len(rest); i++ {
			if !k.opts.set(rest[i]) {
				return k, false
			}
			if rest[i] == 'b' {
				k.endBlank = true
			}
		}
	}
	return k, true
}

type sorter struct {
	keys       []sortKey
	global     sortFlags
	sep        int
	lastResort bool
}

func isBlank(b byte) bool { return b == ' ' || b == '\t' }

// fieldStart returns the offset where field f (1-based) starts.
func (s *sorter) fieldStart(line []byte, f int) int {
	i := 0
	for n := 1; n < f && i < len(line); n++ {
		if s.sep >= 0 {
			j := bytes.IndexByte(line[i:], byte(s.sep))
			if j < 0 {
				return len(line)
			}
			i += j + 1
		} else {
			for i < len(line) && isBlank(line[i]) {
				i++
			}
			for i < len(line) && !isBlank(line[i]) {
				i++
			}
		}
	}
	return i
}

// fieldEnd returns the offset where field f ends.
func (s *sorter) fieldEnd(line []byte, f int) int {
	i := s.fieldStart(line, f)
	if s.sep >= 0 {
		j := bytes.IndexByte(line[i:], byte(s.sep))
		if j < 0 {
			return len(line)
		}
		return i + j
	}
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	for i < len(line) && !isBlank(line[i]) {
		i++
	}
	return i
}

func (s *sorter) keyOf(line []byte, k sortKey) []byte {
	a := s.fieldStart(line, k.startField)
	if k.startBlank {
		for a < len(line) && isBlank(line[a]) {
			a++
		}
	}
	if k.startChar > 0 {
		a = min(a+k.startChar-1, len(line))
	}
	b := len(line)
	if k.endField > 0 {
		if k.endChar == 0 {
			b = s.fieldEnd(line, k.endField)
		} else {
			b = s.fieldStart(line, k.endField)
			if k.endBlank {
				for b < len(line) && isBlank(line[b]) {
					b++
				}
			}
			b = min(b+k.endChar, len(line))
		}
	}
	if b < a {
		b = a
	}
	return line[a:b]
}

func (s *sorter) compare(a, b []byte) int {
	if r := s.compareKeys(a, b); r != 0 {
		return r
	}
	if s.lastResort {
		r := bytes.Compare(a, b)
		if s.global.reverse {
			return -r
		}
		return r
	}
	return 0
}

func (s *sorter) compareKeys(a, b []byte) int {
	if len(s.keys) == 0 {
		if s.global.blanks {
			a, b = bytes.TrimLeft(a, " \t"), bytes.TrimLeft(b, " \t")
		}
		return compareWith(a, b, s.global)
	}
	for _, k := range s.keys {
		if r := compareWith(s.keyOf(a, k), s.keyOf(b, k), k.opts); r != 0 {
			return r
		}
	}
	return 0
}

func compareWith(a, b []byte, f sortFlags) int {
	var r int
	// As coreutils: -f, -d and -i change the key's text before any comparison, numeric
	// ones too ("1e2" under -f -h is "1E2", exa).
	if f.fold || f.dict || f.ignoreNonprint {
		a, b = translateKey(a, f), translateKey(b, f)
	}
	switch {
	case f.numeric:
		r = numCompare(a, b)
	case f.general:
		r = generalCompare(a, b)
	case f.human:
		r = humanCompare(a, b)
	case f.version:
		r = filevercmp(a, b)
	case f.month:
		r = monthOf(a) - monthOf(b)
	default:
		r = bytes.Compare(a, b)
	}
	if f.reverse {
		return -r
	}
	return r
}

func translateKey(a []byte, f sortFlags) []byte {
	out := make([]byte, 0, len(a))
	for _, c := range a {
		if f.dict && !(isBlank(c) || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			continue
		}
		if f.ignoreNonprint && (c < 0x20 || c >= 0x7f) {
			continue
		}
		if f.fold {
			c = upper(c)
		}
		out = append(out, c)
	}
	return out
}

// numCompare compares as sort -n: leading blanks, an optional '-', digits and a '.'
// fraction; anything else ends the number (an empty number is 0).
func numCompare(a, b []byte) int {
	na, fa, ia := parseNum(a)
	nb, fb, ib := parseNum(b)
	if na != nb {
		// Different signs, unless both are zero.
		za, zb := isZeroNum(ia, fa), isZeroNum(ib, fb)
		if za && zb {
			return 0
		}
		if na {
			return -1
		}
		return 1
	}
	r := compareDigits(ia, fa, ib, fb)
	if na {
		return -r
	}
	return r
}

func isZeroNum(i, f []byte) bool {
	return len(bytes.Trim(i, "0")) == 0 && len(bytes.Trim(f, "0")) == 0
}

func parseNum(s []byte) (neg bool, frac, intPart []byte) {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	st := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart = bytes.TrimLeft(s[st:i], "0")
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		frac = bytes.TrimRight(s[fs:i], "0")
	}
	if neg && len(intPart) == 0 && len(frac) == 0 {
		neg = false
	}
	return neg, frac, intPart
}

func compareDigits(ia, fa, ib, fb []byte) int {
	if len(ia) != len(ib) {
		if len(ia) < len(ib) {
			return -1
		}
		return 1
	}
	if r := bytes.Compare(ia, ib); r != 0 {
		return r
	}
	return bytes.Compare(fa, fb)
}

func generalCompare(a, b []byte) int {
	pa, oka := parseFloatPrefix(a)
	pb, okb := parseFloatPrefix(b)
	switch {
	case !oka && !okb:
		return 0
	case !oka:
		return -1
	case !okb:
		return 1
	case math.IsNaN(pa) && math.IsNaN(pb):
		return 0
	case math.IsNaN(pa):
		return -1
	case math.IsNaN(pb):
		return 1
	case pa < pb:
		return -1
	case pa > pb:
		return 1
	}
	return 0
}

func parseFloatPrefix(s []byte) (float64, bool) {
	t := strings.TrimLeft(string(s), " \t")
	// strtod reads hexadecimal numbers ("0x1F") without the p exponent Go wants.
	if v, ok := parseHexPrefix(t); ok {
		return v, true
	}
	for n := len(t); n > 0; n-- {
		if v, err := strconv.ParseFloat(t[:n], 64); err == nil || (err != nil && strings.Contains(err.Error(), "range")) {
			return v, true
		}
	}
	return 0, false
}

func parseHexPrefix(t string) (float64, bool) {
	sign := 1.0
	u := t
	if strings.HasPrefix(u, "-") {
		sign, u = -1, u[1:]
	} else if strings.HasPrefix(u, "+") {
		u = u[1:]
	}
	if len(u) < 3 || u[0] != '0' || (u[1] != 'x' && u[1] != 'X') {
		return 0, false
	}
	i := 2
	for i < len(u) && strings.IndexByte("0123456789abcdefABCDEF", u[i]) >= 0 {
		i++
	}
	if i == 2 {
		return 0, false
	}
	v, err := strconv.ParseUint(u[2:i], 16, 64)
	if err != nil {
		return 0, false
	}
	return sign * float64(v), true
}

// humanCompare compares as sort -h: first by the unit (K, M, G, … after a number with a
// non-zero digit; negative numbers reversed), then as numbers.
func humanCompare(a, b []byte) int {
	if d := unitOrder(a) - unitOrder(b); d != 0 {
		if d < 0 {
			return -1
		}
		return 1
	}
	return numCompare(a, b)
}

func unitOrder(s []byte) int {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	neg := i < len(s) && s[i] == '-'
	if neg {
		i++
	}
	maxDigit := byte('0')
	dot := false
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			maxDigit = max(maxDigit, c)
			continue
		case c == '.' && !dot:
			dot = true
			continue
		}
		break
	}
	if maxDigit == '0' || i >= len(s) {
		return 0
	}
	order := strings.IndexByte("KMGTPEZYRQ", s[i]) + 1
	if s[i] == 'k' {
		order = 1
	}
	if neg {
		return -order
	}
	return order
}

func monthOf(s []byte) int {
	t := strings.ToUpper(strings.TrimLeft(string(s), " \t"))
	for i, m := range []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"} {
		if strings.HasPrefix(t, m) {
			return i + 1
		}
	}
	return 0
}

// filevercmp compares as GNU's version sort (gnulib filevercmp): file name suffixes set
// aside, then runs of non-digits compared with letters before other characters and '~'
// first, runs of digits compared as numbers.
func filevercmp(a, b []byte) int {
	if bytes.Equal(a, b) {
		return 0
	}
	if len(a) == 0 {
		return -1
	}
	if len(b) == 0 {
		return 1
	}
	sa, sb := string(a), string(b)
	if sa == "." {
		return -1
	}
	if sb == "." {
		return 1
	}
	if sa == ".." {
		return -1
	}
	if sb == ".." {
		return 1
	}
	if a[0] == '.' && b[0] != '.' {
		return -1
	}
	if a[0] != '.' && b[0] == '.' {
		return 1
	}
	if a[0] == '.' && b[0] == '.' {
		a, b = a[1:], b[1:]
	}
	pa, pb := a[:filePrefixLen(a)], b[:filePrefixLen(b)]
	one := bytes.Equal(pa, pb)
	if !one {
		if r := verrevcmp(pa, pb); r != 0 {
			return r
		}
	}
	return verrevcmp(a, b)
}

// filePrefixLen is the length of s without its suffix: the longest run at its end of
// (\.[A-Za-z~][A-Za-z0-9~]*)*.
func filePrefixLen(s []byte) int {
	prefix := len(s)
	i := 0
	for i < len(s) {
		// Start of a candidate suffix at i?
		j := i
		for j < len(s) && s[j] == '.' && j+1 < len(s) && isAlphaTilde(s[j+1]) {
			j += 2
			for j < len(s) && (isAlphaTilde(s[j]) || (s[j] >= '0' && s[j] <= '9')) {
				j++
			}
		}
		if j == len(s) && j > i {
			return i
		}
		if j > i {
			i = j
		} else {
			i++
		}
	}
	return prefix
}

func isAlphaTilde(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '~' }

func verOrder(s []byte, i int) int {
	if i >= len(s) {
		return 0
	}
	c := s[i]
	switch {
	case c >= '0' && c <= '9':
		return 0
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return int(c)
	case c == '~':
		return -1
	}
	return int(c) + 256
}

func verrevcmp(a, b []byte) int {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		first := 0
		for (i < len(a) && !isDigit(a[i])) || (j < len(b) && !isDigit(b[j])) {
			ac, bc := verOrder(a, i), verOrder(b, j)
			if ac != bc {
				return ac - bc
			}
			i++
			j++
		}
		for i < len(a) && a[i] == '0' {
			i++
		}
		for j < len(b) && b[j] == '0' {
			j++
		}
		for i < len(a) && isDigit(a[i]) && j < len(b) && isDigit(b[j]) {
			if first == 0 {
				first = int(a[i]) - int(b[j])
			}
			i++
			j++
		}
		if i < len(a) && isDigit(a[i]) {
			return 1
		}
		if j < len(b) && isDigit(b[j]) {
			return -1
		}
		if first != 0 {
			return first
		}
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
