package commands

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/patch"
)

// runApplyPatch is Codex's apply_patch: the patch (V4A, or a unified diff) from its argument
// or from standard input (apply_patch <<'EOF' … EOF), applied with the engine of
// file_apply_patch through FS, all files or none. It prints what Codex prints: "Success.
// Updated the following files:" and "A path", "M path", "D path" lines.
func runApplyPatch(ctx context.Context, env *Env, args []string) int {
	c := newIO(ctx, env, "apply_patch")
	var text string
	switch {
	case len(args) > 2:
		c.errorf("expected one argument (the patch) or the patch on standard input")
		return 2
	case len(args) == 2:
		text = args[1]
	default:
		data, err := readAllBounded(ctx, env.Stdin)
		if err != nil {
			c.errorf("reading the patch: %s", errText(err))
			return 1
		}
		text = string(data)
	}
	p, err := patch.Parse(text)
	if err != nil {
		c.errorf("%s", patchMessage(err))
		return 1
	}
	// Compute every file's new content first, then write: a failing chunk changes nothing.
	type change struct {
		abs, shown string
		data       []byte
		remove     string // a moved or deleted file's old path
		op         byte   // 'A', 'M', 'D'
	}
	var changes []change
	budget := &patch.Budget{MaxWorkBytes: 256 << 20}
	resolve := func(p string) string {
		if strings.HasPrefix(p, "/") {
			return path.Clean(p)
		}
		return env.Abs(p)
	}
	for _, f := range p.Files {
		abs := resolve(f.Path)
		switch f.Op {
		case patch.OpAdd:
			if fi, err := env.FS.Stat(ctx, abs); err == nil && fi.IsDir() {
				c.errorf("cannot add %s: it is a directory", f.Path)
				return 1
			}
			changes = append(changes, change{abs: abs, shown: f.Path, data: []byte(f.Content), op: 'A'})
		case patch.OpDelete:
			old, err := env.FS.ReadFile(ctx, abs)
			if err != nil {
				c.errorf("Failed to delete file %s: %s", f.Path, errText(c.classify(abs, err)))
				return 1
			}
			if err := patch.CheckDelete(ctx, string(old), f, budget); err != nil {
				c.errorf("%s", patchMessage(err))
				return 1
			}
			changes = append(changes, change{remove: abs, shown: f.Path, op: 'D'})
		case patch.OpUpdate:
			old, err := env.FS.ReadFile(ctx, abs)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					c.errorf("Failed to read file to update %s: No such file or directory (os error 2)", f.Path)
				} else {
					c.errorf("Failed to read file to update %s: %s", f.Path, errText(c.classify(abs, err)))
				}
				return 1
			}
			updated, _, err := patch.ApplyUpdate(ctx, string(old), f, budget)
			if err != nil {
				c.errorf("%s", patchMessage(err))
				return 1
			}
			ch := change{abs: abs, shown: f.Path, data: []byte(updated), op: 'M'}
			if f.MoveTo != "" {
				ch.abs, ch.shown, ch.remove = resolve(f.MoveTo), f.MoveTo, abs
			}
			changes = append(changes, ch)
		}
	}
	for _, ch := range changes {
		if ch.abs != "" {
			if err := env.FS.WriteFile(ctx, ch.abs, ch.data, false); err != nil {
				c.errorf("Failed to write file %s: %s", ch.shown, errText(c.classify(ch.abs, err)))
				return 1
			}
		}
		if ch.remove != "" && ch.remove != ch.abs {
			if err := env.FS.Remove(ctx, ch.remove, false); err != nil {
				c.errorf("Failed to delete file %s: %s", ch.shown, errText(err))
				return 1
			}
		}
	}
	c.writeString("Success. Updated the following files:\n")
	for _, op := range []byte{'A', 'M', 'D'} {
		for _, ch := range changes {
			if ch.op == op {
				c.printf("%c %s\n", op, ch.shown)
			}
		}
	}
	return c.done(0)
}

// patchMessage is the text of a patch error without its code.
func patchMessage(err error) string {
	var ae *agentfiles.Error
	if errors.As(err, &ae) && ae.Message != "" {
		return ae.Message
	}
	return err.Error()
}
