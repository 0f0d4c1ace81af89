package storetest

import (
	"testing"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/google/go-cmp/cmp"
)

// testRealWorldPaths checks that names with spaces, non-ASCII letters and LIKE metacharacters
// work in every operation, that the NFC and NFD spellings of a name are one file, and that the
// portable rule refuses them.
func testRealWorldPaths(t *testing.T, newStore func(t *testing.T) driver.Store) {
	e := newEnv(t, newStore)
	ctx, _ := newTenant(proj)
	const nfc, nfd = "/notes/caf\u00e9.md", "/notes/cafe\u0301.md"
	e.write(ctx, proj, "/notes/meeting notes.md", "agenda: budget\n")
	e.write(ctx, proj, nfd, "written as NFD\n")
	if got := e.read(ctx, proj, nfc); got != "written as NFD\n" {
		t.Errorf("read %q after a write to its NFD spelling = %q", nfc, got)
	}
	if _, err := e.svc.Edit(ctx, fileio.EditRequest{Project: proj, Path: nfc, Edits: []fileio.Edit{{OldStr: "NFD", NewStr: "NFD, edited as NFC"}}}); err != nil {
		t.Fatalf("edit %q: %v", nfc, err)
	}
	// LIKE metacharacters in names: a prefix with "_" or "%" must not match other names.
	for _, p := range []string{"/a_b/x.md", "/a%b/y.md", "/axb/z.md", "/a%bc/w.md"} {
		e.write(ctx, proj, p, "agenda\n")
	}
	list := func(dir string) []string {
		t.Helper()
		res, err := e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: dir, Depth: 8, Limit: 0})
		if err != nil {
			t.Fatalf("list %q: %v", dir, err)
		}
		var paths []string
		for _, en := range res.Entries {
			paths = append(paths, en.Path)
		}
		return paths
	}
	if diff := cmp.Diff([]string{"/notes/caf\u00e9.md", "/notes/meeting notes.md"}, list("/notes")); diff != "" {
		t.Errorf("list /notes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/a_b/x.md"}, list("/a_b")); diff != "" {
		t.Errorf("list /a_b (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/a%b/y.md"}, list("/a%b")); diff != "" {
		t.Errorf("list /a%%b (-want +got):\n%s", diff)
	}
	grep, err := e.svc.Grep(ctx, fileio.GrepRequest{Project: proj, Path: "/a_b", Pattern: "agenda", OutputMode: fileio.GrepFilesWithMatches})
	if diff := cmp.Diff([]string{"/a_b/x.md"}, grep.Files); err != nil || diff != "" {
		t.Errorf("grep below /a_b: %v (-want +got):\n%s", err, diff)
	}
	grep, err = e.svc.Grep(ctx, fileio.GrepRequest{Project: proj, Path: "/notes", Pattern: "agenda|edited", OutputMode: fileio.GrepFilesWithMatches, Glob: "cafe\u0301*"})
	if diff := cmp.Diff([]string{nfc}, grep.Files); err != nil || diff != "" {
		t.Errorf("grep with an NFD glob: %v (-want +got):\n%s", err, diff)
	}
	glob, err := e.svc.Glob(ctx, fileio.GlobRequest{Project: proj, Path: "/notes", Pattern: "meeting *"})
	if diff := cmp.Diff([]string{"/notes/meeting notes.md"}, glob.Paths); err != nil || diff != "" {
		t.Errorf("glob \"meeting *\": %v (-want +got):\n%s", err, diff)
	}
	if _, err := e.svc.Rename(ctx, fileio.RenameRequest{Project: proj, From: nfd, To: "/archive/\u00fcber caf\u00e9.md", Overwrite: false}); err != nil {
		t.Fatalf("rename from the NFD spelling: %v", err)
	}
	if got := e.read(ctx, proj, "/archive/u\u0308ber cafe\u0301.md"); got != "written as NFD, edited as NFC\n" {
		t.Errorf("read the renamed file by its NFD spelling = %q", got)
	}
	st, err := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: nfc})
	if err != nil || st.Exists {
		t.Errorf("stat %q after the rename = %+v, %v; want gone", nfc, st, err)
	}
	if err := e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/notes/meeting notes.md", Recursive: false}); err != nil {
		t.Errorf("delete: %v", err)
	}

	portable := newEnv(t, newStore, func(c *fileio.Config) { c.PathRule = fileio.PathRulePortable })
	for _, rule := range PortablePathRules {
		for _, p := range rule.Invalid {
			_, err := portable.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: p, Content: "x"})
			wantCode(t, "portable rule: write "+p, err, fileio.CodeInvalidPath)
		}
		for _, p := range rule.Valid {
			if _, err := portable.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: p, Content: "x"}); err != nil {
				t.Errorf("portable rule: write %q: %v", p, err)
			}
		}
	}
	_, err = portable.svc.Rename(ctx, fileio.RenameRequest{Project: proj, From: "/AZaz09_-.", To: "/a b", Overwrite: false})
	wantCode(t, "portable rule: rename to a name with a space", err, fileio.CodeInvalidPath)
}
