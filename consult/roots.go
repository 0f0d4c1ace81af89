package consult

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentfiles/agentfiles"
)

// CodeOutsideRoots: the path, or the file it resolves to through symbolic links, lies outside
// every directory the Expander may read (see [ExpanderOptions.Roots]).
var (
	CodeOutsideRoots = agentfiles.NewCode("OUTSIDE_ROOTS", agentfiles.KindPermission)
	ErrOutsideRoots  = &agentfiles.Error{Code: CodeOutsideRoots, Message: "path outside the allowed directories"}
)

// rootSet is an Expander's allow-list of directories. The zero value allows every path.
type rootSet struct {
	given []string // cleaned, as configured: what messages name
	real  []string // the same directories with every symbolic link resolved
}

// newRootSet validates and resolves roots: each must be an absolute path of an existing
// directory.
func newRootSet(roots []string) (rootSet, error) {
	var s rootSet
	for _, r := range roots {
		if !strings.HasPrefix(r, "/") || strings.IndexByte(r, 0) >= 0 {
			return rootSet{}, agentfiles.NewError(agentfiles.CodeInvalidArgument,
				"a consult root must be an absolute directory path such as /home/me/project", r)
		}
		clean := path.Clean(r)
		real, err := filepath.EvalSymlinks(clean)
		if err != nil {
			return rootSet{}, agentfiles.WrapError(agentfiles.CodeInvalidArgument,
				"a consult root must be an existing directory; this one cannot be resolved", r, err)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return rootSet{}, agentfiles.WrapError(agentfiles.CodeInvalidArgument,
				"a consult root must be a directory, not a file", r, err)
		}
		s.given = append(s.given, clean)
		s.real = append(s.real, real)
	}
	return s, nil
}

// active reports whether the set restricts anything.
func (s rootSet) active() bool { return len(s.real) > 0 }

// within reports whether the clean absolute path p is dir or lies below it.
func within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir) && p[len(dir)] == '/'
}

// containsReal reports whether the resolved path real lies inside a root. An inactive set
// contains everything.
func (s rootSet) containsReal(real string) bool {
	if !s.active() {
		return true
	}
	for _, r := range s.real {
		if within(real, r) {
			return true
		}
	}
	return false
}

// containsLexical reports whether the clean path p, as written, lies inside a root as
// configured or as resolved.
func (s rootSet) containsLexical(p string) bool {
	if !s.active() {
		return true
	}
	for i := range s.real {
		if within(p, s.given[i]) || within(p, s.real[i]) {
			return true
		}
	}
	return false
}

// outsideError reports a path that is, or resolves to, a path outside every root. The message
// names the allowed directories, never where a link points.
func (s rootSet) outsideError(p string) *agentfiles.Error {
	msg := "the path is outside the directories whose files may be sent to a model"
	if s.containsLexical(p) { // inside as written: a link led out
		msg = "the path leads through a symbolic link to a file outside the directories whose files may be sent to a model"
	}
	return agentfiles.NewError(CodeOutsideRoots, msg+" ("+strings.Join(s.given, ", ")+
		"); name files inside one of them, or ask the operator to allow another directory", p)
}

// resolvePath returns p with every symbolic link resolved, as far as p exists: a missing tail
// is appended as written, and a dangling link is followed to where it points. It is used only
// to decide whether a path that cannot be read lies inside the roots, so that a missing file
// behind a link to outside is reported as outside, not as missing.
func resolvePath(p string) string { return resolveDepth(p, 0) }

func resolveDepth(p string, depth int) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	if p == "/" || depth > 40 { // 40: the kernel's limit on links in one lookup
		return p
	}
	dir := resolveDepth(path.Dir(p), depth+1)
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, err := os.Readlink(p); err == nil {
			if !strings.HasPrefix(target, "/") {
				target = path.Join(dir, target)
			}
			return resolveDepth(path.Clean(target), depth+1)
		}
	}
	return path.Join(dir, path.Base(p))
}

// Roots returns the directories the Expander may read, as configured (cleaned); nil when it
// may read every file the process can (see [ExpanderOptions.Roots]).
func (x *Expander) Roots() []string { return slices.Clone(x.roots.given) }

// Roots returns the directories the Consultant's Expander may read; nil when unrestricted.
func (c *Consultant) Roots() []string { return c.expander.Roots() }

// checkOutputFile refuses an output file whose directory lies outside the roots. The file is
// created in that directory (or as a name_updated variant beside it), never through a link.
func (x *Expander) checkOutputFile(p string) *agentfiles.Error {
	if !x.roots.active() || !strings.HasPrefix(p, "/") {
		return nil // writeOutput reports a relative path
	}
	p = path.Clean(p)
	if !x.roots.containsReal(resolvePath(path.Dir(p))) {
		return x.roots.outsideError(p)
	}
	return nil
}
