package memorytool

import (
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/internal/utf8cut"
)

// Root is the directory every memory path lives under. It is the root of the memory project:
// "/memories/notes.md" is the file "/notes.md" of that project.
const Root = "/memories"

// ProjectPath checks a memory path and returns the path of the same file or directory in the
// memory project: "/memories" is the project root "", "/memories/a/b.md" is "/a/b.md". One
// trailing "/" is accepted ("/memories/", "/memories/notes/").
//
// Everything that could leave /memories is refused, in any spelling: a path that does not start
// with /memories, "." and ".." segments, a backslash, and percent-escapes ("%2e%2e", "%2f"),
// which are never decoded. The rest of the path is normalized to NFC ([fileio.NormalizePath])
// and must pass [fileio.ValidatePath] (UTF-8 text without control or invisible formatting
// characters, at most 512 bytes below /memories). Every refusal is an INVALID_PATH error whose
// message is the tool_result text.
func ProjectPath(p string) (string, error) {
	switch {
	case len(p) > len(Root)+fileio.MaxPathBytes+1:
		return "", pathError("Error: The path is longer than the maximum of " + strconv.Itoa(len(Root)+fileio.MaxPathBytes) + " bytes; use a shorter path below /memories")
	case strings.ContainsAny(p, `\%`):
		return "", pathError("Error: The path " + Display(p) + ` would escape /memories: "\" and %-escapes are not allowed; use a path below /memories such as /memories/notes.md`)
	case p != Root && !strings.HasPrefix(p, Root+"/"):
		return "", pathError("Error: The path " + Display(p) + " is outside /memories; every memory path starts with /memories, such as /memories/notes.md")
	}
	rel := fileio.NormalizePath(strings.TrimSuffix(p[len(Root):], "/"))
	for _, seg := range strings.Split(rel, "/") {
		if seg == "." || seg == ".." {
			return "", pathError("Error: The path " + Display(p) + ` would escape /memories: "." and ".." are not allowed; write the full path, such as /memories/notes.md`)
		}
	}
	if err := fileio.ValidatePath(rel); err != nil {
		msg := "the path is not valid"
		if e, ok := err.(*agentfiles.Error); ok {
			msg = e.Message
		}
		return "", pathError("Error: The path " + Display(p) + " is not a valid memory path: " + msg)
	}
	return rel, nil
}

// MemoryPath is the inverse of ProjectPath: the memory path of a project path.
func MemoryPath(projectPath string) string { return Root + projectPath }

// Display returns p as it may appear in a message: unchanged when it is short and made only of
// the characters a memory path may hold, otherwise quoted and cut to 128 bytes, so that a
// message never carries control characters or a long argument back.
func Display(p string) string {
	if len(p) <= len(Root)+fileio.MaxPathBytes {
		plain := true
		for i := 0; i < len(p) && plain; i++ {
			c := p[i]
			plain = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("/_-.", c) >= 0
		}
		if plain {
			return p
		}
	}
	return strconv.Quote(utf8cut.Shorten(p, 128, "…"))
}

func pathError(msg string) error { return agentfiles.NewError(fileio.CodeInvalidPath, msg, "") }
