package fileio

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/utf8cut"
)

// Path and project limits, in bytes of UTF-8.
const (
	MaxPathBytes    = 512
	MaxProjectBytes = 128
)

// PathRule names the set of characters a path may hold (Config.PathRule, YAML key path_rule).
type PathRule string

// The path rules.
const (
	// PathRuleUnicode, the default, takes real-world names: a segment is any UTF-8 text in
	// Unicode normalization form C without "/", "\\", control characters (C0, DEL, C1, line
	// and paragraph separators) or invisible formatting characters (Unicode category Cf:
	// zero-width characters, bidirectional overrides, the byte order mark), nor a segment that
	// looks like "." or ".." (such as fullwidth full stops). Spaces, accents,
	// other scripts and punctuation such as ( ) & + , ; = ' % * ? [ ] # are allowed.
	PathRuleUnicode PathRule = "unicode"
	// PathRulePortable allows only the characters a-z A-Z 0-9 / _ - . (no whitespace), names
	// that every file system, shell and URL takes without quoting.
	PathRulePortable PathRule = "portable"
)

// NormalizePath returns p in Unicode normalization form C (NFC), the form every path is stored
// and compared in: "café" typed with the precomposed é (U+00E9) and with e + U+0301 name one
// file. Bytes that are not valid UTF-8 are left as they are (ValidatePath refuses them). Every
// Service operation normalizes the paths it is given before it validates them.
func NormalizePath(p string) string {
	if isASCII(p) || !utf8.ValidString(p) {
		return p
	}
	return norm.NFC.String(p)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// ValidatePath checks a path against the default rule, PathRuleUnicode; see
// PathRule.Validate.
func ValidatePath(p string) error { return PathRuleUnicode.Validate(p) }

// Validate checks a path against the rules below and returns nil or an *agentfiles.Error with
// code INVALID_PATH naming the broken rule:
//
//   - length 0..512 bytes; "" is the project root;
//   - the characters of the rule (see PathRuleUnicode and PathRulePortable), in NFC
//     (NormalizePath) under PathRuleUnicode;
//   - "/" is the only separator and the path starts with it;
//   - it does not end with "/" (so "/" itself is invalid; Service.List alone accepts it);
//   - no empty segments ("/a//b"), and no "." or ".." segments.
//
// It never modifies the path. An unknown rule is checked as PathRuleUnicode.
func (r PathRule) Validate(p string) error {
	if p == "" {
		return nil
	}
	if len(p) > MaxPathBytes {
		return pathError(fmt.Sprintf("path is %d bytes; the maximum is %d", len(p), MaxPathBytes), truncateForArg(p))
	}
	if r == PathRulePortable {
		for i := 0; i < len(p); i++ {
			if !pathByteAllowed(p[i]) {
				return pathError(fmt.Sprintf("character %s at byte %d is not allowed; use only a-z, A-Z, 0-9 and / _ - . (the portable path rule)", describeByte(p, i), i), truncateForArg(p))
			}
		}
	} else if err := checkUnicodePath(p); err != nil {
		return err
	}
	if p[0] != '/' {
		return pathError(`path must start with "/" (or be "" for the project root), e.g. "/notes/todo.md"`, truncateForArg(p))
	}
	if p[len(p)-1] == '/' {
		return pathError(`path must not end with "/"; name the file, or use "" for the project root`, truncateForArg(p))
	}
	for _, seg := range strings.Split(p[1:], "/") {
		switch seg {
		case "":
			return pathError(`path has an empty segment ("//"); remove the extra "/"`, truncateForArg(p))
		case ".", "..":
			return pathError(`"." and ".." segments are not allowed; write the full path from the project root`, truncateForArg(p))
		}
	}
	return nil
}

// checkUnicodePath checks the characters of PathRuleUnicode.
func checkUnicodePath(p string) error {
	for i, r := range p {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(p[i:], "\uFFFD"):
			return pathError(fmt.Sprintf("byte 0x%02x at byte %d is not valid UTF-8; paths are UTF-8 text", p[i], i), truncateForArg(p))
		case r < 0x20 || 0x7f <= r && r <= 0x9f:
			return pathError(fmt.Sprintf("control character U+%04X at byte %d is not allowed in a path", r, i), truncateForArg(p))
		case r == '\\':
			return pathError(fmt.Sprintf(`backslash at byte %d is not allowed ("/" is the only separator); use "/"`, i), truncateForArg(p))
		case r == 0x2028, r == 0x2029:
			return pathError(fmt.Sprintf("line or paragraph separator U+%04X at byte %d is not allowed in a path", r, i), truncateForArg(p))
		case unicode.Is(unicode.Cf, r):
			return pathError(fmt.Sprintf(
				"invisible formatting character U+%04X at byte %d is not allowed: a path that looks like another must not be another file", r, i), truncateForArg(p))
		}
	}
	for _, seg := range strings.Split(p, "/") {
		if seg != "." && seg != ".." && !isASCII(seg) {
			if k := norm.NFKC.String(seg); k == "." || k == ".." {
				return pathError(fmt.Sprintf("segment %q looks like %q; such names are not allowed", seg, k), truncateForArg(p))
			}
		}
	}
	if !norm.NFC.IsNormalString(p) {
		return pathError("path is not in Unicode normalization form C; pass it through fileio.NormalizePath (the Service does this itself)", truncateForArg(p))
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

// duplicatePathError is the INVALID_ARGUMENT of a request whose argument arg names path twice,
// spelled first and second: "a.txt" and "/a.txt", or the NFC and NFD spellings of one name,
// are one file, and which of the two a request meant cannot be told.
func duplicatePathError(arg, path, first, second string) error {
	how := fmt.Sprintf("as %q and %q", first, second)
	if first == second {
		how = fmt.Sprintf("twice as %q", first)
	}
	return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
		"%s names %s %s (one file, once normalized); give each file once", arg, path, how), arg)
}
