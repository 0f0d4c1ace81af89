package fileio

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/utf8cut"
)

// Path and project limits, in bytes of UTF-8.
const (
	MaxPathBytes    = 512
	MaxProjectBytes = 128
)

// ValidatePath checks a path against the rules below and returns nil or an *agentfiles.Error with
// code INVALID_PATH naming the broken rule:
//
//   - length 0..512 bytes; "" is the project root;
//   - only the characters a-z A-Z 0-9 / _ - . (so no whitespace, no control characters);
//   - "/" is the only separator and the path starts with it;
//   - it does not end with "/" (so "/" itself is invalid; Service.List alone accepts it);
//   - no empty segments ("/a//b"), and no "." or ".." segments.
//
// It never modifies the path: there is no normalisation besides List's "/".
func ValidatePath(p string) error {
	if p == "" {
		return nil
	}
	if len(p) > MaxPathBytes {
		return pathError(fmt.Sprintf("path is %d bytes; the maximum is %d", len(p), MaxPathBytes), truncateForArg(p))
	}
	for i := 0; i < len(p); i++ {
		if !pathByteAllowed(p[i]) {
			return pathError(fmt.Sprintf("character %s at byte %d is not allowed; use only a-z, A-Z, 0-9 and / _ - .", describeByte(p, i), i), p)
		}
	}
	if p[0] != '/' {
		return pathError(`path must start with "/" (or be "" for the project root), e.g. "/notes/todo.md"`, p)
	}
	if p[len(p)-1] == '/' {
		return pathError(`path must not end with "/"; name the file, or use "" for the project root`, p)
	}
	for _, seg := range strings.Split(p[1:], "/") {
		switch seg {
		case "":
			return pathError(`path has an empty segment ("//"); remove the extra "/"`, p)
		case ".", "..":
			return pathError(`"." and ".." segments are not allowed; write the full path from the project root`, p)
		}
	}
	return nil
}

// ValidateProject checks a project name: 1..128 bytes of valid UTF-8 without control
// characters (C0, DEL and C1 such as U+0085), bidirectional formatting characters (U+202E and
// the rest, which make a name display as another), line and paragraph separators, or a byte
// order mark. Violations return INVALID_PATH, as the project is part of every path.
func ValidateProject(project string) error {
	switch {
	case project == "":
		return agentfiles.NewError(CodeInvalidPath, "project is required (1 to 128 bytes), e.g. \"my-project\"", "project")
	case len(project) > MaxProjectBytes:
		return agentfiles.NewError(CodeInvalidPath, fmt.Sprintf("project is %d bytes; the maximum is %d", len(project), MaxProjectBytes), truncateForArg(project))
	case !utf8.ValidString(project):
		return agentfiles.NewError(CodeInvalidPath, "project must be valid UTF-8", "project")
	}
	for _, r := range project {
		switch {
		case r < 0x20 || 0x7f <= r && r <= 0x9f:
			return agentfiles.NewError(CodeInvalidPath, fmt.Sprintf("project must not contain control characters (U+%04X)", r), "project")
		case r == 0x061c, r == 0x200e, r == 0x200f, 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
			return agentfiles.NewError(CodeInvalidPath, fmt.Sprintf("project must not contain bidirectional formatting characters (U+%04X)", r), "project")
		case r == 0x2028, r == 0x2029, r == 0xfeff:
			return agentfiles.NewError(CodeInvalidPath, fmt.Sprintf("project must not contain invisible separators (U+%04X)", r), "project")
		case unicode.Is(unicode.Cf, r):
			return agentfiles.NewError(CodeInvalidPath, fmt.Sprintf(
				"project must not contain invisible formatting characters (U+%04X): a name that looks like another must not be another project", r), "project")
		}
	}
	first, _ := utf8.DecodeRuneInString(project)
	last, _ := utf8.DecodeLastRuneInString(project)
	if unicode.IsSpace(first) || unicode.IsSpace(last) {
		return agentfiles.NewError(CodeInvalidPath, fmt.Sprintf(
			"project %q starts or ends with whitespace, which would make it look like another project; remove it", truncateForArg(project)), "project")
	}
	return nil
}

func pathByteAllowed(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	case c == '/', c == '_', c == '-', c == '.':
		return true
	}
	return false
}

func describeByte(p string, i int) string {
	c := p[i]
	switch {
	case c < 0x20 || c == 0x7f:
		return fmt.Sprintf("control 0x%02x", c)
	case c == ' ':
		return "space"
	case c >= 0x80:
		return fmt.Sprintf("non-ASCII byte 0x%02x", c)
	}
	return fmt.Sprintf("%q", string(c))
}

func pathError(msg, arg string) *agentfiles.Error {
	return agentfiles.NewError(CodeInvalidPath, msg, arg)
}

// truncateForArg keeps error arguments short; the path itself may be huge.
func truncateForArg(s string) string {
	const maxArg = 64
	return utf8cut.Shorten(s, maxArg, "...")
}

// baseName is the last segment of a valid path ("" for the root).
func baseName(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

// ancestors returns the proper ancestor directories of a valid non-root path, outermost
// first, without the root: "/a/b/c" -> ["/a", "/a/b"].
func ancestors(p string) []string {
	var out []string
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}

// dirPrefix is the string prefix shared by every descendant of dir ("" for the root).
func dirPrefix(dir string) string { return dir + "/" }
