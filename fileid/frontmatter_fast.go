package fileid

import (
	"bytes"
	"unicode/utf8"
)

// fastFrontMatter decides the title and description of a front-matter block without a YAML
// parser, for the subset of YAML that real front matter is written in:
//
//   - a top-level block mapping whose keys start in column 0 and are plain ASCII words that
//     may hold dots, dashes, slashes and spaces ("ms.date", "online version"), each key once;
//   - values that are plain scalars (folded over more-indented continuation lines), one-line
//     single- or double-quoted scalars (common escapes only), block scalars ("|", ">-", …;
//     for title and description without more-indented lines or indentation indicators),
//     flow sequences of such scalars ("[a, 'b']"), block sequences of one-line scalars, or
//     one level of nested mapping with one-line values;
//   - full-line comments and comments after a value, blank lines, "\n", "\r\n" or "\r" line
//     endings, and any UTF-8 text that YAML allows except tabs.
//
// When it answers (ok), the block is one yaml.v3 accepts, and title and description are what
// yaml.v3 decodes into frontMatter: the scalar's text, whatever type YAML would resolve it to
// (a number, date or boolean title is its source text), and "" for null ("~", "null", empty).
// Everything else — anchors, aliases, tags, merge keys, quoted keys, multi-line quoted
// scalars, deeper nesting, a non-scalar title, tabs, a key given twice — returns ok=false for
// yaml.v3 to decide. TestFastFrontMatterDifferential and FuzzFrontMatter check it against
// yaml.v3.
func fastFrontMatter(y []byte) (fm frontMatter, ok bool) {
	if !yamlPrintableNoTab(y) {
		return frontMatter{}, false
	}
	const (
		stTop   = iota // between entries: a top-level key, a blank line or a comment follows
		stPlain        // after a plain scalar value that more-indented lines may continue
		stEmpty        // after a key without a value on its line: null, or a nested collection
		stSeq          // in a block sequence at nestIndent
		stMap          // in a nested mapping at nestIndent
		stBlock        // in a block scalar; blockIndent is 0 until its first content line
	)
	const (
		fieldNone = iota
		fieldTitle
		fieldDesc
	)
	var (
		keysBuf     [32][]byte
		keys        = keysBuf[:0]
		st          = stTop
		nestIndent  int
		blockIndent int
		blankIndent int    // the most spaces on a blank line before a block scalar's content
		breaks      int    // blank lines since the last line of a plain or block scalar
		field       int    // the field the current entry sets
		val         []byte // the current entry's scalar so far
		plain       bool   // val is a plain scalar (null forms resolve to null)
		block       byte   // the current entry is a block scalar: '|' literal or '>' folded
		chomp       byte   // its chomping indicator: '-' strip, '+' keep, 0 clip
		blockLines  int    // its content lines
	)
	// appendVal appends to val, which may be a slice of y: the full slice expression makes
	// append copy it.
	appendVal := func(breaks int, sep byte, text []byte) {
		val = val[:len(val):len(val)]
		if breaks == 0 && sep != 0 {
			val = append(val, sep)
		}
		for range breaks {
			val = append(val, '\n')
		}
		val = append(val, text...)
	}
	commit := func() bool { // the current entry ends
		if field != fieldNone {
			if block != 0 {
				if blockLines == 0 {
					return false
				}
				switch chomp {
				case 0:
					appendVal(0, '\n', nil)
				case '+':
					appendVal(breaks+1, 0, nil)
				}
			}
			v := ""
			if !plain || !isYAMLNull(val) {
				v = string(val)
			}
			if field == fieldTitle {
				fm.Title = v
			} else {
				fm.Description = v
			}
		}
		field, val, plain, block = fieldNone, nil, false, 0
		return true
	}
	for pos := 0; pos < len(y); {
		line, next := lineAt(y, pos)
		pos = next
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		rest := line[indent:]
		if len(rest) == 0 { // a blank line
			switch st {
			case stPlain:
				breaks++
			case stBlock:
				if blockIndent == 0 {
					blankIndent = max(blankIndent, indent)
				} else if indent > blockIndent && field != fieldNone {
					return frontMatter{}, false // a line of spaces only, kept in the value
				}
				breaks++
			}
			continue
		}
		switch st {
		case stBlock:
			if blockIndent == 0 && indent > 0 {
				if blankIndent > indent {
					return frontMatter{}, false // a leading blank line more indented than the content
				}
				blockIndent = indent
			}
			if blockIndent > 0 && indent >= blockIndent {
				if field != fieldNone { // content of title or description
					if block == '>' && indent > blockIndent {
						return frontMatter{}, false // a more-indented line is not folded
					}
					switch {
					case blockLines == 0:
						appendVal(breaks, 0, line[blockIndent:])
					case block == '|':
						appendVal(breaks+1, 0, line[blockIndent:])
					default:
						appendVal(breaks, ' ', line[blockIndent:])
					}
					blockLines++
					breaks = 0
				}
				continue // content of the block scalar
			}
			if indent > 0 {
				return frontMatter{}, false
			}
			st = stTop
		case stPlain:
			if indent == 0 {
				st = stTop
				break
			}
			if rest[0] == '#' {
				st = stTop // a comment ends the scalar; a continuation after it is an error
				continue
			}
			text := bytes.TrimRight(rest, " ")
			if plainIndicator(text[0]) || !plainRest(text) {
				return frontMatter{}, false
			}
			if field != fieldNone {
				appendVal(breaks, ' ', text)
			}
			breaks = 0
			continue
		case stEmpty, stSeq, stMap:
			if rest[0] == '#' {
				continue
			}
			item := rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ')
			if st == stEmpty && (item || indent > 0) {
				if field != fieldNone {
					return frontMatter{}, false // a collection where a string is decoded
				}
				st, nestIndent = stMap, indent
				if item {
					st = stSeq
				}
			}
			if indent == nestIndent && st != stEmpty && (indent > 0 || item) {
				if !nestedLine(rest, st == stSeq) {
					return frontMatter{}, false
				}
				continue
			}
			if indent > 0 {
				return frontMatter{}, false
			}
			st = stTop
		}
		// A top-level line: a comment, or "key:" and a value.
		if rest[0] == '#' {
			continue
		}
		if indent > 0 {
			return frontMatter{}, false
		}
		if !commit() {
			return frontMatter{}, false
		}
		key, value, found := splitKey(line)
		if !found || len(keys) == len(keysBuf) {
			return frontMatter{}, false
		}
		for _, k := range keys {
			if bytes.Equal(k, key) {
				return frontMatter{}, false // yaml.v3 rejects a repeated key
			}
		}
		keys = append(keys, key)
		switch string(key) {
		case "title":
			field = fieldTitle
		case "description":
			field = fieldDesc
		}
		breaks = 0
		switch {
		case len(value) == 0 || value[0] == '#':
			st = stEmpty
		case value[0] == '|' || value[0] == '>':
			if !blockHeader(value[1:]) {
				return frontMatter{}, false
			}
			st, blockIndent, blankIndent, blockLines = stBlock, 0, 0, 0
			block, chomp = value[0], 0
			if len(value) > 1 && (value[1] == '-' || value[1] == '+') {
				chomp = value[1]
			}
		default:
			v, kind, comment := inlineValue(value)
			if kind == valueInvalid || kind == valueFlow && field != fieldNone {
				return frontMatter{}, false // invalid, or a sequence where a string is decoded
			}
			val, plain = v, kind == valuePlain
			st = stTop
			if plain && !comment {
				st = stPlain
			}
		}
	}
	if !commit() {
		return frontMatter{}, false
	}
	return fm, true
}

// yamlPrintableNoTab reports whether b holds only what yaml.v3 reads as printable characters
// and line breaks "\n" and "\r", in valid UTF-8, with no tab and none of the characters YAML
// 1.1 also takes for line breaks (U+0085, U+2028, U+2029) or a byte-order mark.
func yamlPrintableNoTab(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\r' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1, r < 0xA0, r == 0x2028, r == 0x2029, r == 0xFEFF,
			r > 0xD7FF && r < 0xE000, r == 0xFFFE, r == 0xFFFF:
			return false
		}
		i += size
	}
	return true
}

// plainIndicator reports whether a plain scalar cannot start with c (YAML's indicators; "-",
// "?" and ":" could start one when followed by a non-space, which is left to yaml.v3).
func plainIndicator(c byte) bool {
	switch c {
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return true
	}
	return false
}

// plainRest reports whether text (no leading or trailing space, not starting with an
// indicator) is one line of a block plain scalar: no ": " or final ":", which would make it a
// mapping, and no " #", which would start a comment.
func plainRest(text []byte) bool {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case ':':
			if i+1 == len(text) || text[i+1] == ' ' {
				return false
			}
		case '#':
			if i == 0 || text[i-1] == ' ' {
				return false
			}
		}
	}
	return true
}

// splitKey splits a top-level line "key: value" or "key:" into the key and the value without
// its leading spaces. A key is ASCII letters, digits, "_", "-", ".", "/" and inner spaces,
// starting with a letter, digit or "_"; found is false for anything else.
func splitKey(line []byte) (key, value []byte, found bool) {
	for i, c := range line {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_':
		case c == '-' || c == '.' || c == '/' || c == ' ':
			if i == 0 {
				return nil, nil, false
			}
		case c == ':' && i > 0 && line[i-1] != ' ' && i < 1000:
			if i+1 < len(line) && line[i+1] != ' ' {
				return nil, nil, false
			}
			return line[:i], bytes.TrimLeft(line[i+1:], " "), true
		default:
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// nestedLine checks one line of a nested collection (without its indentation): "- value" in
// a block sequence, "key: value" in a nested mapping, where value is a one-line scalar or
// flow sequence.
func nestedLine(rest []byte, seq bool) bool {
	var value []byte
	if seq {
		if len(rest) < 2 || rest[0] != '-' || rest[1] != ' ' {
			return false
		}
		value = bytes.TrimLeft(rest[2:], " ")
	} else {
		var found bool
		if _, value, found = splitKey(rest); !found {
			return false
		}
	}
	if len(value) == 0 || value[0] == '#' {
		return false // null, or a deeper collection
	}
	_, kind, _ := inlineValue(value)
	return kind != valueInvalid
}

// blockHeader checks what follows "|" or ">": an optional chomping indicator, then nothing or
// a comment. Explicit indentation indicators are left to yaml.v3.
func blockHeader(h []byte) bool {
	if len(h) > 0 && (h[0] == '-' || h[0] == '+') {
		h = h[1:]
	}
	return len(h) == 0 || h[0] == ' ' && trailer(h)
}

// trailer reports whether what follows a complete value is nothing, spaces, or spaces and a
// comment.
func trailer(t []byte) bool {
	t = bytes.TrimLeft(t, " ")
	return len(t) == 0 || t[0] == '#'
}

// The kinds of value inlineValue reads.
const (
	valueInvalid = iota // not in the subset fastFrontMatter decides
	valuePlain
	valueQuoted
	valueFlow // a flow sequence
)

// inlineValue reads a value that starts on the key's line (v starts with no space and is not a
// comment): a plain scalar, a one-line quoted scalar or a flow sequence. It returns the
// scalar's text, its kind, and whether a comment follows it on the line.
func inlineValue(v []byte) (text []byte, kind int, comment bool) {
	var n int
	ok := false
	switch v[0] {
	case '"':
		text, n, ok = doubleQuoted(v)
		kind = valueQuoted
	case '\'':
		text, n, ok = singleQuoted(v)
		kind = valueQuoted
	case '[':
		n, ok = flowSequence(v)
		kind = valueFlow
	default:
		if plainIndicator(v[0]) {
			return nil, valueInvalid, false
		}
		end := len(v)
		if i := bytes.Index(v, []byte(" #")); i >= 0 {
			end, comment = i, true
		}
		text = bytes.TrimRight(v[:end], " ")
		if !plainRest(text) {
			return nil, valueInvalid, false
		}
		return text, valuePlain, comment
	}
	if !ok || !trailerAfterQuote(v[n:]) {
		return nil, valueInvalid, false
	}
	return text, kind, hasComment(v[n:])
}

// trailerAfterQuote checks what follows a closing quote or bracket: nothing, or spaces and
// optionally a comment.
func trailerAfterQuote(t []byte) bool {
	return len(t) == 0 || t[0] == ' ' && trailer(t)
}

func hasComment(t []byte) bool {
	t = bytes.TrimLeft(t, " ")
	return len(t) > 0 && t[0] == '#'
}

// singleQuoted reads a one-line single-quoted scalar at the start of v, where a doubled quote
// stands for one, and returns its value and length.
func singleQuoted(v []byte) (s []byte, n int, ok bool) {
	for i := 1; i < len(v); i++ {
		if v[i] != '\'' {
			continue
		}
		if i+1 < len(v) && v[i+1] == '\'' {
			i++
			continue
		}
		return bytes.ReplaceAll(v[1:i], []byte("''"), []byte("'")), i + 1, true
	}
	return nil, 0, false // it continues on the next line: left to yaml.v3
}

// doubleQuoted reads a one-line double-quoted scalar at the start of v and returns its value
// and length. It knows the escapes \\ \" \n \r \t and \u of a non-surrogate; any other
// escape, or a scalar continued on the next line, returns ok=false.
func doubleQuoted(v []byte) (s []byte, n int, ok bool) {
	i := bytes.IndexAny(v[1:], `"\`) + 1
	if i == 0 {
		return nil, 0, false
	}
	if v[i] == '"' {
		return v[1:i], i + 1, true
	}
	out := append([]byte(nil), v[1:i]...)
	for ; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			return out, i + 1, true
		case c != '\\':
			out = append(out, c)
			continue
		case i+1 == len(v):
			return nil, 0, false
		}
		i++
		switch v[i] {
		case '\\', '"':
			out = append(out, v[i])
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if i+4 >= len(v) {
				return nil, 0, false
			}
			r := rune(0)
			for _, h := range v[i+1 : i+5] {
				d := hexDigit(h)
				if d < 0 {
					return nil, 0, false
				}
				r = r<<4 | rune(d)
			}
			if r >= 0xD800 && r <= 0xDFFF {
				return nil, 0, false
			}
			out = utf8.AppendRune(out, r)
			i += 4
		default:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

func hexDigit(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// flowSequence checks a one-line flow sequence of scalars at the start of v ("[a, 'b c']",
// "[]") and returns its length. Items are quoted scalars or plain words without ":", "#" or
// flow indicators; an empty item (as in "[a,,b]" or "[a,]") returns ok=false.
func flowSequence(v []byte) (n int, ok bool) {
	i := 1
	skip := func() {
		for i < len(v) && v[i] == ' ' {
			i++
		}
	}
	skip()
	if i < len(v) && v[i] == ']' {
		return i + 1, true
	}
	for i < len(v) {
		var m int
		switch v[i] {
		case '"':
			_, m, ok = doubleQuoted(v[i:])
		case '\'':
			_, m, ok = singleQuoted(v[i:])
		default:
			if plainIndicator(v[i]) {
				return 0, false
			}
			m = bytes.IndexAny(v[i:], ",]")
			if m < 0 || bytes.ContainsAny(v[i:i+m], ":#[]{}\"'") {
				return 0, false
			}
			ok = true
		}
		if !ok {
			return 0, false
		}
		i += m
		skip()
		if i == len(v) {
			return 0, false
		}
		switch v[i] {
		case ']':
			return i + 1, true
		case ',':
			i++
			skip()
			if i == len(v) || v[i] == ']' || v[i] == ',' {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	return 0, false
}

// isYAMLNull reports whether a plain scalar resolves to null.
func isYAMLNull(v []byte) bool {
	switch string(v) {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}
