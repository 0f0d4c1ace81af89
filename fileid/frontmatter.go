package fileid

import (
	"bytes"
	"fmt"
	"iter"

	"gopkg.in/yaml.v3"
)

// frontMatter is the part of a YAML front-matter block the registry uses.
type frontMatter struct {
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
}

// splitFrontMatter finds a YAML front-matter block: the file starts (after an optional UTF-8
// byte-order mark) with a line "---" and a later line "---" or "..." closes it. It returns the
// YAML text and the offset where the Markdown body begins; bodyStart is 0 (or 3 after a BOM)
// when there is no front matter. Front matter is not Markdown content: it is never part of a
// section and never searched.
func splitFrontMatter(content []byte) (yamlText []byte, bodyStart int) {
	start := 0
	if bytes.HasPrefix(content, []byte("\xef\xbb\xbf")) {
		start = 3
	}
	first, next := lineAt(content, start)
	if string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, start
	}
	yamlStart := next
	for pos := next; pos < len(content); {
		line, after := lineAt(content, pos)
		switch string(bytes.TrimRight(line, " \t\r")) {
		case "---", "...":
			return content[yamlStart:pos], after
		}
		pos = after
	}
	return nil, start // no closing fence: a thematic break, not front matter
}

// lineAt returns the line starting at pos without its line ending, and the offset after it.
// As in CommonMark, a line ends at "\n", "\r\n" or a lone "\r".
func lineAt(content []byte, pos int) (line []byte, next int) {
	end := lineEndAt(content, pos)
	return content[pos:end], nextLineStart(content, end)
}

// lineEndAt returns the offset of the line ending ("\n" or "\r") at or after at, or len(b).
func lineEndAt(b []byte, at int) int {
	i := bytes.IndexByte(b[at:], '\n')
	if i < 0 {
		i = len(b) - at
	}
	if j := bytes.IndexByte(b[at:at+i], '\r'); j >= 0 {
		i = j
	}
	return at + i
}

// nextLineStart returns the offset after the line ending at end (see lineEndAt).
func nextLineStart(b []byte, end int) int {
	if end < len(b) && b[end] == '\r' && end+1 < len(b) && b[end+1] == '\n' {
		return end + 2
	}
	return min(end+1, len(b))
}

// countLines returns the number of line endings in b: "\n", "\r\n" and lone "\r" count one
// each. b must not end between the "\r" and "\n" of a "\r\n".
func countLines(b []byte) int {
	n := bytes.Count(b, nl)
	if bytes.IndexByte(b, '\r') >= 0 {
		n += bytes.Count(b, []byte{'\r'}) - bytes.Count(b, []byte("\r\n"))
	}
	return n
}

// normalizeEOL returns b with every line ending ("\r\n", lone "\r") written as "\n", and the
// offsets of the line starts in b and in the result (the first is 0 in both).
func normalizeEOL(b []byte) (norm []byte, starts, normStarts []int) {
	norm = make([]byte, 0, len(b))
	starts, normStarts = []int{0}, []int{0}
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '\r', '\n':
			if c == '\r' && i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			norm = append(norm, '\n')
			starts, normStarts = append(starts, i+1), append(normStarts, len(norm))
		default:
			norm = append(norm, c)
		}
	}
	return norm, starts, normStarts
}

// textLines yields the lines of b without their line endings.
func textLines(b []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for pos := 0; pos < len(b); {
			line, next := lineAt(b, pos)
			pos = next
			if !yield(line) {
				return
			}
		}
	}
}

// parseFrontMatter decodes title and description as yaml.v3 does. Malformed YAML yields the
// zero value and the error, which the caller logs; the block is still treated as front matter.
// Most blocks are decided by fastFrontMatter without a YAML parser; yaml.v3 reads the rest.
func parseFrontMatter(yamlText []byte) (frontMatter, error) {
	var fm frontMatter
	if len(bytes.TrimSpace(yamlText)) == 0 {
		return fm, nil
	}
	if fm, ok := fastFrontMatter(yamlText); ok {
		return fm, nil
	}
	if fm, ok := lenientFrontMatter(yamlText); ok {
		return fm, nil
	}
	if err := decodeYAML(yamlText, &fm); err != nil {
		return frontMatter{}, err
	}
	return fm, nil
}

// decodeYAML is yaml.Unmarshal, with a panic turned into an error: yaml.v3 panics instead of
// failing on a few malformed blocks (a merge key whose mapping has a mapping as a key), and
// one file's front matter must not bring down New.
func decodeYAML(y []byte, out any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	return yaml.Unmarshal(y, out)
}

// lenientFrontMatter reads title and description when both are plain one-line scalars of a
// flat list of "key: value" lines with plain keys, without checking the values of other keys.
// On a block yaml.v3 accepts it gives yaml.v3's answer; on a few blocks yaml.v3 rejects (a
// repeated or malformed other key) it still finds the title, and the registry has always
// used that answer, so it stays. Anything else (quotes, block scalars, flow collections,
// comments, continuation lines, duplicate title or description, null) returns ok=false.
func lenientFrontMatter(yamlText []byte) (fm frontMatter, ok bool) {
	var seenTitle, seenDesc bool
	prevWanted := false // the previous key was title or description
	seenKey := false    // a top-level key was read
	for line := range textLines(yamlText) {
		if len(bytes.TrimLeft(line, " ")) == 0 {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if prevWanted || !seenKey {
				// A continuation or a nested value of title or description, or an indented
				// first line, which sets the indentation of the whole mapping (" title: 0").
				return frontMatter{}, false
			}
			continue // belongs to some other key's value
		}
		seenKey = true
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !plainKey(line[:colon]) {
			return frontMatter{}, false
		}
		rest := line[colon+1:]
		if len(rest) > 0 && rest[0] != ' ' {
			return frontMatter{}, false
		}
		key := string(line[:colon])
		prevWanted = key == "title" || key == "description"
		if !prevWanted {
			continue
		}
		value, ok := plainScalar(bytes.Trim(rest, " "))
		if !ok {
			return frontMatter{}, false
		}
		if key == "title" {
			if seenTitle {
				return frontMatter{}, false
			}
			seenTitle, fm.Title = true, value
		} else {
			if seenDesc {
				return frontMatter{}, false
			}
			seenDesc, fm.Description = true, value
		}
	}
	return fm, true
}

func plainKey(k []byte) bool {
	for _, c := range k {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return k[0] != '-'
}

// plainScalar accepts a value that YAML reads as exactly its own text.
func plainScalar(v []byte) (string, bool) {
	if len(v) == 0 {
		return "", false // null, or a nested block on the next lines
	}
	switch v[0] {
	case '"', '\'', '[', ']', '{', '}', '|', '>', '&', '*', '!', '%', '@', '`', '#', ',', '?', '-', ':', '~':
		return "", false
	}
	for _, c := range v {
		if c < 0x20 || c == 0x7f || c >= 0x80 {
			return "", false
		}
	}
	if bytes.Contains(v, []byte(" #")) || bytes.Contains(v, []byte(": ")) || bytes.HasSuffix(v, []byte(":")) {
		return "", false
	}
	switch string(bytes.ToLower(v)) {
	case "null", "true", "false", "yes", "no", "on", "off", ".nan", ".inf":
		return "", false
	}
	return string(v), true
}
