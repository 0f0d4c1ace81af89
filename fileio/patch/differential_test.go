package patch_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/patch"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/google/go-cmp/cmp"
)

// applyToFiles applies p to files (path → content) as a store would: all of it, or an error.
func applyToFiles(p patch.Patch, files map[string]string) (map[string]string, error) {
	out := map[string]string{}
	for k, v := range files {
		out[k] = v
	}
	for _, f := range p.Files {
		path := patch.CleanPath(f.Path)
		switch f.Op {
		case patch.OpAdd:
			out[path] = f.Content
		case patch.OpDelete:
			if err := patch.CheckDelete(context.Background(), out[path], f, nil); err != nil {
				return nil, err
			}
			delete(out, path)
		case patch.OpUpdate:
			updated, _, err := patch.ApplyUpdate(context.Background(), out[path], f, nil)
			if err != nil {
				return nil, err
			}
			delete(out, path)
			if f.MoveTo != "" {
				path = patch.CleanPath(f.MoveTo)
			}
			out[path] = updated
		}
	}
	return out, nil
}

// TestDifferential: random changes written in every dialect, and as perturbed V4A, apply to
// exactly the expected files.
func TestDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		c := storetest.RandomPatchCase(rng)
		forms := []struct {
			name    string
			dialect patch.Dialect
			parse   func() (patch.Patch, error)
		}{
			{"v4a", patch.DialectV4A, func() (patch.Patch, error) { return patch.Parse(c.V4A(false)) }},
			{"v4a perturbed", patch.DialectV4A, func() (patch.Patch, error) { return patch.Parse(c.V4A(true)) }},
			{"unified", patch.DialectUnified, func() (patch.Patch, error) { return patch.Parse(c.Unified()) }},
			{"operations", patch.DialectOperations, func() (patch.Patch, error) { return patch.ParseOperations(c.Operations()) }},
		}
		for _, form := range forms {
			p, err := form.parse()
			if err != nil {
				t.Fatalf("case %d %s: parse: %v\n%s", i, form.name, err, c.V4A(false))
			}
			got, err := applyToFiles(p, c.Before)
			if err != nil {
				t.Fatalf("case %d %s: apply: %v\nV4A:\n%s\nunified:\n%s", i, form.name, err, c.V4A(false), c.Unified())
			}
			if diff := cmp.Diff(c.After(form.dialect), got); diff != "" {
				t.Fatalf("case %d %s (-want +got):\n%s\npatch:\n%s", i, form.name, diff, strings.ReplaceAll(c.Unified(), "\r", `\r`))
			}
		}
	}
}
