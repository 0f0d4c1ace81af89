package consult

import (
	"path"
	"strings"

	"github.com/agentfiles/agentfiles"
)

// entrySpec is a validated files-list entry: either one literal path or a directory plus a
// file-name pattern.
type entrySpec struct {
	literal string       // cleaned absolute path, when the entry has no wildcard
	dir     string       // cleaned absolute directory, when it has one
	pattern *namePattern // the file-name pattern, when it has one
}

// parseEntry checks an entry against the files-list rules without touching the file system.
// The rules, in the order they are checked:
//
//   - the entry is not empty and has no NUL byte (INVALID_ENTRY);
//   - it is an absolute path (NOT_ABSOLUTE);
//   - it has no "**" (RECURSIVE_WILDCARD);
//   - *, ? and [ appear only in the last element (WILDCARD_IN_DIRECTORY);
//   - a wildcard name ends in a literal extension such as .py (MISSING_EXTENSION);
//   - its character classes can match something (INVALID_ENTRY).
func parseEntry(entry string) (entrySpec, *agentfiles.Error) {
	switch {
	case strings.TrimSpace(entry) == "":
		return entrySpec{}, agentfiles.NewError(CodeInvalidEntry,
			"empty entry; give an absolute file path such as /home/me/project/main.go or a pattern such as /home/me/project/src/*.py", entry)
	case strings.IndexByte(entry, 0) >= 0:
		return entrySpec{}, agentfiles.NewError(CodeInvalidEntry, "entry contains a NUL byte; remove it", entry)
	case !strings.HasPrefix(entry, "/"):
		msg := "entries must be absolute paths starting with /; prefix it with the project directory, e.g. /home/me/project/src/*.py"
		if strings.HasPrefix(entry, "~") {
			msg = "~ is not expanded; " + msg
		}
		return entrySpec{}, agentfiles.NewError(CodeNotAbsolute, msg, entry)
	case strings.Contains(entry, "**"):
		return entrySpec{}, agentfiles.NewError(CodeRecursiveWildcard,
			"recursive wildcards (**) are not supported: wildcards are allowed only in the file name and match one directory; list each directory, e.g. /home/me/project/src/*.py and /home/me/project/lib/*.py", entry)
	}
	slash := strings.LastIndexByte(entry, '/')
	dir, name := entry[:slash], entry[slash+1:]
	if hasMagic(dir) || (name == "" && hasMagic(entry)) {
		return entrySpec{}, agentfiles.NewError(CodeWildcardInDirectory,
			"wildcards (*, ?, [...]) are allowed only in the file name, the last path element; name each directory explicitly, e.g. /home/me/project/src/*.py instead of /home/me/*/src/*.py", entry)
	}
	if !hasMagic(name) {
		return entrySpec{literal: path.Clean(entry)}, nil
	}
	toks, problem := parseName(name)
	if problem != "" {
		return entrySpec{}, agentfiles.NewError(CodeInvalidEntry, problem, entry)
	}
	if literalExtension(toks) == "" {
		return entrySpec{}, agentfiles.NewError(CodeMissingExtension,
			"a wildcard pattern must end in a literal file extension, such as "+path.Join(dirOrRoot(dir), "*.py")+
				" or "+path.Join(dirOrRoot(dir), "*_test.go")+`; "*" alone or "data.*" would match every kind of file`, entry)
	}
	p, problem := compileName(name, toks)
	if problem != "" {
		return entrySpec{}, agentfiles.NewError(CodeInvalidEntry, problem, entry)
	}
	return entrySpec{dir: path.Clean(dirOrRoot(dir)), pattern: p}, nil
}

func dirOrRoot(dir string) string {
	if dir == "" {
		return "/"
	}
	return dir
}
