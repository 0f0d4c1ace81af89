package commands

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// runUniq is uniq [-c -d -u -i -f N -s N -w N] [INPUT [OUTPUT]].
func runUniq(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "uniq")
	opts, files, err := optSpec{short: "cdDuif:s:w:z", long: []string{"count|c", "repeated|d", "all-repeated?|D", "unique|u",
		"ignore-case|i", "skip-fields=|f", "skip-chars=|s", "check-chars=|w", "zero-terminated|z", "group?"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	count, repeated, allRepeated, unique, fold := false, false, false, false, false
	skipFields, skipChars, checkChars := 0, 0, -1
	for _, o := range opts {
		switch o.key {
		case "c":
			count = true
		case "d":
			repeated = true
		case "D":
			allRepeated = true
		case "u":
			unique = true
		case "i":
			fold = true
		case "f", "s", "w":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 0 {
				what := map[string]string{"f": "number of fields to skip", "s": "number of bytes to skip", "w": "number of bytes to compare"}[o.key]
				c.errorf("%s: invalid %s", o.val, what)
				return 1
			}
			switch o.key {
			case "f":
				skipFields = n
			case "s":
				skipChars = n
			case "w":
				checkChars = n
			}
		case "z":
			c.errorf("-z is not supported")
			return 1
		}
	}
	if count && allRepeated {
		c.errorf("printing all duplicated lines and repeat counts is meaningless")
		return c.usage(&usageError{}, 1)
	}
	if len(files) > 2 {
		c.errorf("extra operand %s", quote(files[2]))
		return c.usage(&usageError{}, 1)
	}
	in := "-"
	if len(files) > 0 {
		in = files[0]
	}
	r, err := c.open(in)
	if err != nil {
		c.errorf("%s: %s", quotef(in), errText(err))
		return 1
	}
	var out bytes.Buffer
	emit := func(p []byte) bool {
		if len(files) == 2 {
			out.Write(p)
			return true
		}
		return c.write(p)
	}
	key := func(line []byte) []byte {
		k := bytes.TrimSuffix(line, []byte("\n"))
		for f := 0; f < skipFields; f++ {
			i := 0
			for i < len(k) && isBlank(k[i]) {
				i++
			}
			for i < len(k) && !isBlank(k[i]) {
				i++
			}
			k = k[i:]
		}
		k = k[min(skipChars, len(k)):]
		if checkChars >= 0 {
			k = k[:min(checkChars, len(k))]
		}
		return k
	}
	equal := func(a, b []byte) bool {
		if fold {
			return bytes.EqualFold(a, b)
		}
		return bytes.Equal(a, b)
	}
	lr := newLineReader(ctx, r)
	var prev []byte
	var n int64
	firstOfGroup := true
	flush := func() bool {
		if prev == nil {
			return true
		}
		line := prev
		if line[len(line)-1] != '\n' {
			line = append(line, '\n')
		}
		if allRepeated {
			return true
		}
		if (repeated && n < 2) || (unique && n > 1) {
			return true
		}
		if count {
			return emit([]byte(fmt.Sprintf("%7d %s", n, line)))
		}
		return emit(line)
	}
	var group [][]byte
	printedGroup := false
	for line := lr.next(); line != nil; line = lr.next() {
		line = append([]byte(nil), line...)
		if prev != nil && equal(key(prev), key(line)) {
			n++
			if allRepeated {
				group = append(group, line)
			}
			continue
		}
		if allRepeated && len(group) > 1 {
			if printedGroup && false {
				emit([]byte("\n"))
			}
			for _, g := range group {
				if g[len(g)-1] != '\n' {
					g = append(g, '\n')
				}
				emit(g)
			}
			printedGroup = true
		}
		if !flush() {
			break
		}
		prev, n = line, 1
		group = [][]byte{line}
		firstOfGroup = false
	}
	_ = firstOfGroup
	if allRepeated && len(group) > 1 {
		for _, g := range group {
			if g[len(g)-1] != '\n' {
				g = append(g, '\n')
			}
			emit(g)
		}
	}
	flush()
	if lr.err != nil && ctx.Err() != nil {
		return 130
	}
	if len(files) == 2 {
		if err := env.FS.WriteFile(ctx, env.Abs(files[1]), out.Bytes(), false); err != nil {
			c.errorf("%s: %s", quotef(files[1]), errText(err))
			return 1
		}
	}
	return c.done(0)
}

// cutRange is one element of a cut list: from..to, 1-based, to 0 meaning the end.
type cutRange struct{ from, to int }

func parseCutList(s string, fields bool) ([]cutRange, string) {
	numbered, invalid := "byte/character positions are numbered from 1", "invalid byte/character position "
	if fields {
		numbered, invalid = "fields are numbered from 1", "invalid field value "
	}
	var out []cutRange
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			return nil, numbered
		}
		lo, hi, isRange := strings.Cut(part, "-")
		r := cutRange{}
		var err error
		if lo == "" {
			r.from = 1
		} else if r.from, err = strconv.Atoi(lo); err != nil {
			return nil, invalid + quote(lo)
		} else if r.from == 0 {
			return nil, numbered
		}
		if !isRange {
			r.to = r.from
		} else if hi == "" {
			if lo == "" {
				return nil, "invalid range with no endpoint: -"
			}
			r.to = 0
		} else if r.to, err = strconv.Atoi(hi); err != nil {
			return nil, invalid + quote(hi)
		} else if r.to == 0 {
			return nil, numbered
		} else if r.to < r.from {
			return nil, "invalid decreasing range"
		}
		out = append(out, r)
	}
	return out, ""
}

func inCutList(list []cutRange, n int) bool {
	for _, r := range list {
		if n >= r.from && (r.to == 0 || n <= r.to) {
			return true
		}
	}
	return false
}

// runCut is cut -b/-c/-f LIST [-d DELIM] [-s] [--complement] [--output-delimiter].
func runCut(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "cut")
	opts, files, err := optSpec{short: "b:c:f:d:snz", long: []string{"bytes=|b", "characters=|c", "fields=|f", "delimiter=|d",
		"only-delimited|s", "complement", "output-delimiter=", "zero-terminated|z"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	mode, listText := byte(0), ""
	delim, outDelim, haveOutDelim := byte('\t'), "", false
	onlyDelimited, complement, delimGiven := false, false, false
	for _, o := range opts {
		switch o.key {
		case "b", "c", "f":
			if mode != 0 {
				c.errorf("only one list may be specified")
				return c.usage(&usageError{}, 1)
			}
			mode, listText = o.key[0], o.val
		case "d":
			if len(o.val) != 1 {
				if o.val == "" {
					delim = '\n'
					delimGiven = true
					continue
				}
				c.errorf("the delimiter must be a single character")
				return c.usage(&usageError{}, 1)
			}
			delim, delimGiven = o.val[0], true
		case "s":
			onlyDelimited = true
		case "complement":
			complement = true
		case "output-delimiter":
			outDelim, haveOutDelim = o.val, true
		case "z":
			c.errorf("-z is not supported")
			return 1
		}
	}
	if mode == 0 {
		c.errorf("you must specify a list of bytes, characters, or fields")
		return c.usage(&usageError{}, 1)
	}
	if mode != 'f' && (delimGiven || onlyDelimited) {
		if delimGiven {
			c.errorf("an input delimiter may be specified only when operating on fields")
		} else {
			c.errorf("suppressing non-delimited lines makes sense\n\tonly when operating on fields")
		}
		return c.usage(&usageError{}, 1)
	}
	list, msg := parseCutList(listText, mode == 'f')
	if msg != "" {
		c.errorf("%s", msg)
		return c.usage(&usageError{}, 1)
	}
	if !haveOutDelim {
		outDelim = string(delim)
		if mode != 'f' {
			outDelim = ""
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	status := 0
	for _, f := range files {
		r, err := c.open(f)
		if err != nil {
			c.errorf("%s: %s", quotef(f), errText(err))
			status = 1
			continue
		}
		lr := newLineReader(ctx, r)
		for line := lr.next(); line != nil && !c.stopped(); line = lr.next() {
			body := bytes.TrimSuffix(line, []byte("\n"))
			var out []byte
			if mode == 'f' {
				if bytes.IndexByte(body, delim) < 0 {
					if onlyDelimited {
						continue
					}
					out = body
				} else {
					first := true
					for i, field := range bytes.Split(body, []byte{delim}) {
						if inCutList(list, i+1) != complement {
							if !first {
								out = append(out, outDelim...)
							}
							out = append(out, field...)
							first = false
						}
					}
				}
			} else {
				prevIn := false
				for i, b := range body {
					in := inCutList(list, i+1) != complement
					if in {
						if !prevIn && len(out) > 0 && haveOutDelim {
							out = append(out, outDelim...)
						}
						out = append(out, b)
					}
					prevIn = in
				}
			}
			c.write(out)
			c.writeString("\n")
		}
	}
	return c.done(status)
}

// trSet expands a tr set: escapes, ranges, [:class:], [=c=], [c*n] and [c*].
type trSetItem struct {
	chars  []byte
	repeat int // [c*n]: -1 for [c*] (fill), 0 for none
	class  string
}

func parseTrSet(s string) ([]trSetItem, string) {
	var items []trSetItem
	var raw []byte // unescaped bytes, with a parallel mask of which were escaped
	var escaped []bool
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '\\' && i+1 < len(s) {
			i++
			n := s[i]
			switch n {
			case 'n':
				ch = '\n'
			case 't':
				ch = '\t'
			case 'r':
				ch = '\r'
			case 'a':
				ch = '\a'
			case 'b':
				ch = '\b'
			case 'f':
				ch = '\f'
			case 'v':
				ch = '\v'
			case '\\':
				ch = '\\'
			default:
				if n >= '0' && n <= '7' {
					v := 0
					k := 0
					for k < 3 && i < len(s) && s[i] >= '0' && s[i] <= '7' {
						v = v*8 + int(s[i]-'0')
						i++
						k++
					}
					i--
					ch = byte(v)
				} else {
					ch = n
				}
			}
			raw = append(raw, ch)
			escaped = append(escaped, true)
			continue
		}
		raw = append(raw, ch)
		escaped = append(escaped, false)
	}
	for i := 0; i < len(raw); i++ {
		ch := raw[i]
		if ch == '[' && !escaped[i] && i+1 < len(raw) {
			rest := string(raw[i+1:])
			switch {
			case strings.HasPrefix(rest, ":"):
				if end := strings.Index(rest[1:], ":]"); end >= 0 {
					name := rest[1 : 1+end]
					if classMatch(name, 'a') || classMatch(name, '0') || classMatch(name, ' ') || classMatch(name, '!') || classMatch(name, 0) || name == "upper" {
						items = append(items, trSetItem{class: name})
						i += 1 + end + 2
						continue
					}
					return nil, "invalid character class " + quote(name)
				}
			case strings.HasPrefix(rest, "="):
				if len(rest) >= 3 && rest[2] == '=' && len(rest) >= 4 && rest[3] == ']' {
					items = append(items, trSetItem{chars: []byte{rest[1]}})
					i += 4
					continue
				}
			case len(rest) >= 3 && rest[1] == '*':
				if end := strings.IndexByte(rest[2:], ']'); end >= 0 {
					countText := rest[2 : 2+end]
					n := -1
					if countText != "" {
						base := 10
						if countText[0] == '0' {
							base = 8
						}
						v, err := strconv.ParseInt(countText, base, 32)
						if err != nil {
							return nil, fmt.Sprintf("invalid repeat count %s in [c*n] construct", quote(countText))
						}
						n = int(v)
						if n == 0 {
							n = -1
						}
					}
					items = append(items, trSetItem{chars: []byte{rest[0]}, repeat: n})
					i += 2 + end + 1
					continue
				}
			}
		}
		if i+2 < len(raw) && raw[i+1] == '-' && !escaped[i+1] {
			hi := raw[i+2]
			if hi < ch {
				return nil, fmt.Sprintf("range-endpoints of '%s' are in reverse collating sequence order", string(raw[i:i+3]))
			}
			var r []byte
			for b := int(ch); b <= int(hi); b++ {
				r = append(r, byte(b))
			}
			items = append(items, trSetItem{chars: r})
			i += 2
			continue
		}
		items = append(items, trSetItem{chars: []byte{ch}})
	}
	return items, ""
}

func expandTrSet(items []trSetItem, fillTo int) []byte {
	var out []byte
	fillAt := -1
	for _, it := range items {
		switch {
		case it.class != "":
			for b := 0; b < 256; b++ {
				if classMatch(it.class, byte(b)) {
					out = append(out, byte(b))
				}
			}
		case it.repeat > 0:
			out = append(out, bytes.Repeat(it.chars, it.repeat)...)
		case it.repeat < 0:
			fillAt = len(out)
		default:
			out = append(out, it.chars...)
		}
	}
	if fillAt >= 0 {
		var fillChar byte
		for _, it := range items {
			if it.repeat < 0 {
				fillChar = it.chars[0]
			}
		}
		n := max(fillTo-len(out), 0)
		out = append(out[:fillAt], append(bytes.Repeat([]byte{fillChar}, n), out[fillAt:]...)...)
	}
	return out
}

// runTr is tr [-c -d -s -t] SET1 [SET2].
func runTr(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "tr")
	opts, sets, err := optSpec{short: "cCdst", long: []string{"complement|c", "delete|d", "squeeze-repeats|s", "truncate-set1|t"}}.parse(args[1:])
	if err != nil {
		return c.usage(err, 1)
	}
	complement, del, squeeze, truncate := false, false, false, false
	for _, o := range opts {
		switch o.key {
		case "c", "C":
			complement = true
		case "d":
			del = true
		case "s":
			squeeze = true
		case "t":
			truncate = true
		}
	}
	need := 2
	if del && !squeeze || squeeze && !del && len(sets) == 1 {
		need = 1
	}
	switch {
	case len(sets) == 0:
		c.errorf("missing operand")
		return c.usage(&usageError{}, 1)
	case len(sets) < need:
		c.errorf("missing operand after %s", quote(sets[0]))
		if env.Stderr != nil {
			if del {
				fmt.Fprintf(env.Stderr, "Two strings must be given when both deleting and squeezing repeats.\n")
			} else {
				fmt.Fprintf(env.Stderr, "Two strings must be given when translating.\n")
			}
		}
		return c.usage(&usageError{}, 1)
	case len(sets) > need:
		c.errorf("extra operand %s", quote(sets[need]))
		if del && len(sets) == 2 && need == 1 && env.Stderr != nil {
			fmt.Fprintf(env.Stderr, "Only one string may be given when deleting without squeezing repeats.\n")
		}
		return c.usage(&usageError{}, 1)
	}
	items1, msg := parseTrSet(sets[0])
	if msg != "" {
		c.errorf("%s", msg)
		return 1
	}
	set1 := expandTrSet(items1, 0)
	var inSet1 [256]bool
	for _, b := range set1 {
		inSet1[b] = true
	}
	if complement {
		var comp []byte
		for b := 0; b < 256; b++ {
			if !inSet1[b] {
				comp = append(comp, byte(b))
			}
		}
		for b := range inSet1 {
			inSet1[b] = !inSet1[b]
		}
		set1 = comp
	}
	var set2 []byte
	var inSet2 [256]bool
	translate := !del && len(sets) == 2
	if len(sets) == 2 {
		items2, msg := parseTrSet(sets[1])
		if msg != "" {
			c.errorf("%s", msg)
			return 1
		}
		if translate {
			// [:upper:] and [:lower:] in SET2 must stand where SET1 has a case class.
			for i, it := range items2 {
				if it.class == "upper" || it.class == "lower" {
					if len(items1) != len(items2) || (items1[i].class != "upper" && items1[i].class != "lower") {
						c.errorf("misaligned [:upper:] and/or [:lower:] construct")
						return 1
					}
				}
			}
		}
		set2 = expandTrSet(items2, len(set1))
		if translate && len(set2) == 0 {
			c.errorf("when not truncating set1, string2 must be non-empty")
			return 1
		}
		if translate && len(items1) == 1 && len(items2) == 1 && items1[0].class != "" && items2[0].class != "" {
			// [:lower:] to [:upper:] and the reverse map case to case.
			if items1[0].class == "lower" && items2[0].class == "upper" || items1[0].class == "upper" && items2[0].class == "lower" {
				set1, set2 = expandTrSet(items1, 0), expandTrSet(items2, 0)
			}
		}
		if translate && truncate && len(set1) > len(set2) {
			set1 = set1[:len(set2)]
		}
		for _, b := range set2 {
			inSet2[b] = true
		}
	}
	var table [256]byte
	for i := range table {
		table[i] = byte(i)
	}
	if translate {
		for i, b := range set1 {
			if i < len(set2) {
				table[b] = set2[i]
			} else {
				table[b] = set2[len(set2)-1]
			}
		}
	}
	squeezeSet := inSet1
	if len(sets) == 2 {
		squeezeSet = inSet2
	}
	in := env.Stdin
	if in == nil {
		in = strings.NewReader("")
	}
	buf := make([]byte, 64<<10)
	out := make([]byte, 0, 64<<10)
	last := -1
	for {
		if ctx.Err() != nil {
			return 130
		}
		n, rerr := in.Read(buf)
		out = out[:0]
		for _, b := range buf[:n] {
			if del && inSet1[b] {
				continue
			}
			if translate {
				b = table[b]
			}
			if squeeze && squeezeSet[b] && last == int(b) {
				continue
			}
			last = int(b)
			out = append(out, b)
		}
		if len(out) > 0 && !c.write(out) {
			break
		}
		if rerr != nil {
			break
		}
	}
	return c.done(0)
}
