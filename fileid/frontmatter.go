package fileid

import (
	"bytes"

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

// lineAt returns the line starting at pos without its "\n", and the offset after the "\n".
func lineAt(content []byte, pos int) (line []byte, next int) {
	if i := bytes.IndexByte(content[pos:], '\n'); i >= 0 {
		return content[pos : pos+i], pos + i + 1
	}
	return content[pos:], len(content)
}

// parseFrontMatter decodes title and description. Malformed YAML yields the zero value and
// the error, which the caller logs; the block is still treated as front matter.
func parseFrontMatter(yamlText []byte) (frontMatter, error) {
	var fm frontMatter
	if len(bytes.TrimSpace(yamlText)) == 0 {
		return fm, nil
	}
	if err := yaml.Unmarshal(yamlText, &fm); err != nil {
		return frontMatter{}, err
	}
	return fm, nil
}
