package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/patch"
	"github.com/google/go-cmp/cmp"
)

// exercisePatch covers Service.ApplyPatch and Service.ReadMany.
func exercisePatch(t *testing.T, newStore func(t *testing.T) driver.Store) {
	t.Run("Differential", func(t *testing.T) { testPatchDifferential(t, newEnv(t, newStore)) })
	t.Run("Atomicity", func(t *testing.T) { testPatchAtomicity(t, newEnv(t, newStore)) })
	t.Run("ExpectedSHA256", func(t *testing.T) { testPatchExpectedSHA256(t, newEnv(t, newStore)) })
	t.Run("Refusals", func(t *testing.T) {
		testPatchRefusals(t, newEnv(t, newStore, func(c *fileio.Config) { c.MaxPatchFiles = 3; c.MaxPatchBytes = 4096 }))
	})
	t.Run("DryRunAndHistory", func(t *testing.T) { testPatchDryRunHistory(t, newEnv(t, newStore)) })
	t.Run("Concurrent", func(t *testing.T) { testPatchConcurrent(t, newEnv(t, newStore)) })
	t.Run("ReadMany", func(t *testing.T) {
		testReadMany(t, newEnv(t, newStore, func(c *fileio.Config) { c.MaxPatchFiles = 5 }))
	})
}

// ReadProject returns every file of project through svc.ReadMany, following its cursor:
// path → content.
func ReadProject(t testing.TB, ctx context.Context, svc *fileio.Service, project string) map[string]string {
	t.Helper()
	out := map[string]string{}
	req := fileio.ReadManyRequest{Project: project, Glob: "**"}
	for {
		res, err := svc.ReadMany(ctx, req)
		if err != nil {
			t.Fatalf("reading project %s: %v", project, err)
		}
		for _, f := range res.Files {
			out[f.Path] = f.Content
		}
		if !res.Truncated {
			return out
		}
		req.Cursor = res.NextCursor
	}
}

func (e *env) seed(ctx context.Context, files map[string]string) {
	e.t.Helper()
	for p, c := range files {
		if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: p, Content: c, Mode: fileio.ModeTruncate}); err != nil {
			e.t.Fatalf("write %s: %v", p, err)
		}
	}
}

// testPatchDifferential applies random changes in every dialect (and as perturbed V4A)
// through the Service and compares every file of the project with the expected result.
func testPatchDifferential(t *testing.T, e *env) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 15 {
		c := RandomPatchCase(rng)
		forms := []struct {
			name    string
			dialect patch.Dialect
			req     fileio.ApplyPatchRequest
		}{
			{"v4a", patch.DialectV4A, fileio.ApplyPatchRequest{Patch: c.V4A(false)}},
			{"v4a perturbed", patch.DialectV4A, fileio.ApplyPatchRequest{Patch: c.V4A(true)}},
			{"unified", patch.DialectUnified, fileio.ApplyPatchRequest{Patch: c.Unified()}},
			{"operations", patch.DialectOperations, fileio.ApplyPatchRequest{Operations: c.Operations()}},
		}
		for _, form := range forms {
			ctx, _ := newTenant(proj)
			e.seed(ctx, c.Before)
			req := form.req
			req.Project = proj
			res, err := e.svc.ApplyPatch(ctx, req)
			if err != nil {
				t.Fatalf("case %d %s: %v\n%s", i, form.name, err, c.V4A(false))
			}
			want := c.After(form.dialect)
			got := ReadProject(t, ctx, e.svc, proj)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("case %d %s (-want +got):\n%s", i, form.name, diff)
			}
			for _, f := range res.Files {
				if f.Operation != "delete" && f.SHA256 != fileio.SHA256Hex([]byte(got[f.Path])) {
					t.Errorf("case %d %s: %s: sha256 %s is not the stored content's", i, form.name, f.Path, f.SHA256)
				}
			}
		}
	}
}

// testPatchAtomicity: a patch whose last chunk fails changes no file, creates none, deletes
// none, and keeps no new version.
func testPatchAtomicity(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	before := map[string]string{"/a.txt": "one\ntwo\n", "/b.txt": "three\nfour\n", "/gone.txt": "x\n"}
	e.seed(ctx, before)
	text := "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Add File: new.txt\n+new\n*** Delete File: gone.txt\n" +
		"*** Update File: b.txt\n@@\n-three\n+THREE\n@@\n four\n-five\n+FIVE\n*** End Patch\n"
	_, err := e.svc.ApplyPatch(ctx, fileio.ApplyPatchRequest{Project: proj, Patch: text})
	wantCode(t, "failing patch", err, fileio.CodeNoMatch)
	wantMessage(t, "failing patch", err, "/b.txt: chunk 2 of 2", `"five"`, "closest lines")
	if diff := cmp.Diff(before, ReadProject(t, ctx, e.svc, proj)); diff != "" {
		t.Errorf("files after a failed patch (-want +got):\n%s", diff)
	}
	versions, err := e.svc.Versions(ctx, fileio.VersionsRequest{Project: proj, Path: "/a.txt"})
	if err != nil || len(versions) != 1 {
		t.Errorf("versions of /a.txt after a failed patch: %d, %v; want only the current one", len(versions), err)
	}
}

// testPatchExpectedSHA256: a stale hash for one file of a patch refuses the whole patch with
// CONFLICT and changes nothing; a hash of a file the patch does not read, or a malformed one,
// is INVALID_ARGUMENT; the current hashes (keys as the patch writes the paths) let it through.
func testPatchExpectedSHA256(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	before := map[string]string{"/a.txt": "one\n", "/b.txt": "two\n"}
	e.seed(ctx, before)
	text := "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Delete File: b.txt\n*** End Patch\n"
	sum := func(s string) string { return fileio.SHA256Hex([]byte(s)) }
	refusals := []struct {
		name     string
		expected map[string]string
		code     agentfiles.Code
	}{
		{"stale", map[string]string{"a.txt": sum("one\n"), "b.txt": sum("old\n")}, fileio.CodeConflict},
		{"not read by the patch", map[string]string{"c.txt": sum("x")}, agentfiles.CodeInvalidArgument},
		{"malformed", map[string]string{"a.txt": "abc"}, agentfiles.CodeInvalidArgument},
	}
	for _, r := range refusals {
		_, err := e.svc.ApplyPatch(ctx, fileio.ApplyPatchRequest{Project: proj, Patch: text, ExpectedSHA256: r.expected})
		wantCode(t, r.name, err, r.code)
		if diff := cmp.Diff(before, ReadProject(t, ctx, e.svc, proj)); diff != "" {
			t.Errorf("%s: files changed (-want +got):\n%s", r.name, diff)
		}
	}
	current := map[string]string{"a.txt": sum("one\n"), "/b.txt": sum("two\n")}
	if _, err := e.svc.ApplyPatch(ctx, fileio.ApplyPatchRequest{Project: proj, Patch: text, ExpectedSHA256: current}); err != nil {
		t.Fatalf("patch with the current hashes: %v", err)
	}
	if diff := cmp.Diff(map[string]string{"/a.txt": "ONE\n"}, ReadProject(t, ctx, e.svc, proj)); diff != "" {
		t.Errorf("files after the patch (-want +got):\n%s", diff)
	}
}

// testPatchRefusals: every refusal is coded, says what to do, and changes nothing.
func testPatchRefusals(t *testing.T, e *env) {
	before := map[string]string{"/a.txt": "one\ntwo\n", "/dir/b.txt": "b\n"}
	v4a := func(body string) string { return "*** Begin Patch\n" + body + "*** End Patch\n" }
	cases := []struct {
		name string
		req  fileio.ApplyPatchRequest
		code agentfiles.Code
		msg  []string
	}{
		{"add over a file", fileio.ApplyPatchRequest{Patch: v4a("*** Add File: a.txt\n+x\n")}, agentfiles.CodeAlreadyExists, []string{"*** Add File", "/a.txt"}},
		{"add over a directory", fileio.ApplyPatchRequest{Patch: v4a("*** Add File: dir\n+x\n")}, agentfiles.CodeIsDirectory, nil},
		{"add below a file", fileio.ApplyPatchRequest{Patch: v4a("*** Add File: a.txt/x\n+x\n")}, fileio.CodeNotDirectory, nil},
		{"move onto a file", fileio.ApplyPatchRequest{Patch: v4a("*** Update File: a.txt\n*** Move to: dir/b.txt\n@@\n-one\n+1\n")}, agentfiles.CodeAlreadyExists, []string{"*** Move to"}},
		{"update a missing file", fileio.ApplyPatchRequest{Patch: v4a("*** Update File: nope.txt\n@@\n-a\n+b\n")}, agentfiles.CodeNotFound, []string{"updates /nope.txt", "*** Add File"}},
		{"delete a missing file", fileio.ApplyPatchRequest{Patch: v4a("*** Delete File: nope.txt\n")}, agentfiles.CodeNotFound, nil},
		{"empty patch", fileio.ApplyPatchRequest{}, fileio.CodeInvalidPatch, []string{"empty"}},
		{"malformed header", fileio.ApplyPatchRequest{Patch: v4a("*** Change File: a.txt\n")}, fileio.CodeInvalidPatch, []string{"patch line 2"}},
		{"path leaving the project", fileio.ApplyPatchRequest{Patch: v4a("*** Add File: ../x.txt\n+x\n")}, fileio.CodeInvalidPath, []string{"may not leave"}},
		{"same file twice", fileio.ApplyPatchRequest{Patch: v4a("*** Delete File: a.txt\n*** Add File: /a.txt\n+x\n")}, fileio.CodeInvalidPatch, []string{"/a.txt appears in file 1 and file 2"}},
		{"a file below another new one", fileio.ApplyPatchRequest{Patch: v4a("*** Add File: n\n+x\n*** Add File: n/m\n+y\n")}, fileio.CodeNotDirectory, nil},
		{"too many files", fileio.ApplyPatchRequest{Patch: v4a("*** Add File: 1\n+x\n*** Add File: 2\n+x\n*** Add File: 3\n+x\n*** Add File: 4\n+x\n")}, agentfiles.CodeInvalidArgument, []string{"at most 3"}},
		{"too large", fileio.ApplyPatchRequest{Patch: v4a("*** Add File: big\n+" + strings.Repeat("x", 5000) + "\n")}, agentfiles.CodePayloadTooLarge, []string{"maximum is 4096"}},
		{"patch and operations", fileio.ApplyPatchRequest{Patch: v4a("*** Delete File: a.txt\n"), Operations: []patch.Operation{{Type: "delete_file", Path: "a.txt"}}}, agentfiles.CodeInvalidArgument, nil},
		{"bad operation", fileio.ApplyPatchRequest{Operations: []patch.Operation{{Type: "rename_file", Path: "a.txt"}}}, fileio.CodeInvalidPatch, []string{"operations[0].type"}},
		{"delete of other content", fileio.ApplyPatchRequest{Patch: "--- a/a.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-TWO\n"}, fileio.CodeNoMatch, []string{"deletes /a.txt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, _ := newTenant(proj)
			e.seed(ctx, before)
			req := c.req
			req.Project = proj
			_, err := e.svc.ApplyPatch(ctx, req)
			wantCode(t, c.name, err, c.code)
			if c.msg != nil {
				wantMessage(t, c.name, err, c.msg...)
			}
			if diff := cmp.Diff(before, ReadProject(t, ctx, e.svc, proj)); diff != "" {
				t.Errorf("files after a refused patch (-want +got):\n%s", diff)
			}
		})
	}
}

// testPatchDryRunHistory: a dry run answers as the real run does and changes nothing; the
// real run keeps each changed file's previous version.
func testPatchDryRunHistory(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	before := map[string]string{"/src/a.go": "package a\r\n\r\nfunc A() int { return 1 }\r\n", "/old.md": "# Old\n"}
	e.seed(ctx, before)
	text := "*** Begin Patch\n*** Update File: src/a.go\n@@ func A() int { return 1 }\n-func A() int { return 1 }\n+func A() int { return 2 }\n" +
		"*** Update File: /old.md\n*** Move to: docs/new.md\n@@\n-# Old\n+# New\n*** End Patch\n"
	dry, err := e.svc.ApplyPatch(ctx, fileio.ApplyPatchRequest{Project: proj, Patch: text, DryRun: true})
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if diff := cmp.Diff(before, ReadProject(t, ctx, e.svc, proj)); diff != "" {
		t.Errorf("files after a dry run (-want +got):\n%s", diff)
	}
	res, err := e.svc.ApplyPatch(ctx, fileio.ApplyPatchRequest{Project: proj, Patch: text})
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	want := map[string]string{"/src/a.go": "package a\r\n\r\nfunc A() int { return 2 }\r\n", "/docs/new.md": "# New\n"}
	if diff := cmp.Diff(want, ReadProject(t, ctx, e.svc, proj)); diff != "" {
		t.Errorf("files after the patch (-want +got):\n%s", diff)
	}
	for i := range res.Files {
		res.Files[i].UpdatedAt = dry.Files[i].UpdatedAt
	}
	dry.DryRun = false
	if diff := cmp.Diff(dry, res); diff != "" {
		t.Errorf("the dry run's answer differs from the real one's (-dry +real):\n%s", diff)
	}
	wantFiles := []fileio.PatchedFile{
		{Path: "/src/a.go", Operation: "update", Chunks: []patch.ChunkResult{{Chunk: 1, Line: 3, Pass: patch.PassExact}}},
		{Path: "/docs/new.md", Operation: "move", MovedFrom: "/old.md", Chunks: []patch.ChunkResult{{Chunk: 1, Line: 1, Pass: patch.PassExact}}},
	}
	for i := range res.Files {
		got := res.Files[i]
		if !strings.Contains(got.Diff, "+func A() int { return 2 }") && !strings.Contains(got.Diff, "+# New") {
			t.Errorf("%s: diff %q shows no added line", got.Path, got.Diff)
		}
		got.Diff, got.SHA256, got.SizeBytes, got.UpdatedAt = "", "", 0, wantFiles[i].UpdatedAt
		if diff := cmp.Diff(wantFiles[i], got); diff != "" {
			t.Errorf("file %d (-want +got):\n%s", i, diff)
		}
	}
	for path, versions := range map[string]int{"/src/a.go": 2, "/old.md": 1} {
		vs, err := e.svc.Versions(ctx, fileio.VersionsRequest{Project: proj, Path: path})
		if err != nil || len(vs) != versions {
			t.Errorf("versions of %s: %d, %v; want %d", path, len(vs), err, versions)
		}
	}
}

// testPatchConcurrent: ten patches to one file, each changing its own line, sent at once, all
// land; none is lost. A patch that finds the project busy fails with a retryable code and is
// retried, as a client would.
func testPatchConcurrent(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	const writers = 10
	var lines []string
	for i := range writers * 4 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	e.seed(ctx, map[string]string{"/shared.txt": strings.Join(lines, "\n") + "\n"})
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at := w*4 + 1
			text := fmt.Sprintf("*** Begin Patch\n*** Update File: shared.txt\n@@\n line %d\n-line %d\n+LINE %d by %d\n line %d\n*** End Patch\n", at-1, at, at, w, at+1)
			for {
				_, err := e.svc.ApplyPatch(ctx, fileio.ApplyPatchRequest{Project: proj, Patch: text})
				if err != nil && agentfiles.ErrorCode(err).Retryable() {
					continue
				}
				errs[w] = err
				return
			}
		}()
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Errorf("patch %d: %v", w, err)
		}
	}
	for w := range writers {
		at := w*4 + 1
		lines[at] = fmt.Sprintf("LINE %d by %d", at, w)
	}
	want := map[string]string{"/shared.txt": strings.Join(lines, "\n") + "\n"}
	if diff := cmp.Diff(want, ReadProject(t, ctx, e.svc, proj)); diff != "" {
		t.Errorf("after %d concurrent patches (-want +got):\n%s", writers, diff)
	}
}

// testReadMany: files in path order with their own errors, the answer cap and its cursor.
func testReadMany(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.seed(ctx, map[string]string{"/a.txt": "aaaa", "/d/b.txt": "bb", "/d/c.md": "cccccc", "/d/e/f.md": "f"})
	file := func(p, c string) fileio.ManyFile {
		return fileio.ManyFile{Path: p, Content: c, SizeBytes: int64(len(c)), SHA256: fileio.SHA256Hex([]byte(c))}
	}
	failed := func(p, code string) fileio.ManyFile {
		return fileio.ManyFile{Path: p, Error: &fileio.FileError{Code: code}}
	}
	res, err := e.svc.ReadMany(ctx, fileio.ReadManyRequest{Project: proj, Paths: []string{"d/c.md", "/a.txt", "nope", "d"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Files {
		if res.Files[i].Error != nil {
			res.Files[i].Error.Message = ""
		}
	}
	want := fileio.ReadManyResult{Files: []fileio.ManyFile{file("/a.txt", "aaaa"), failed("/d", "IS_DIRECTORY"), file("/d/c.md", "cccccc"), failed("/nope", "NOT_FOUND")}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	// A glob read within a cap of 7 bytes, page by page: nothing lost or repeated.
	var got []fileio.ManyFile
	req := fileio.ReadManyRequest{Project: proj, Glob: "**/*", MaxBytes: 7}
	for page := 0; ; page++ {
		res, err := e.svc.ReadMany(ctx, req)
		if err != nil || page > 10 {
			t.Fatalf("page %d: %v", page, err)
		}
		got = append(got, res.Files...)
		if !res.Truncated {
			break
		}
		req.Cursor = res.NextCursor
	}
	wantAll := []fileio.ManyFile{file("/a.txt", "aaaa"), file("/d/b.txt", "bb"), file("/d/c.md", "cccccc"), file("/d/e/f.md", "f")}
	if diff := cmp.Diff(wantAll, got); diff != "" {
		t.Errorf("paged glob (-want +got):\n%s", diff)
	}
	// One file larger than the cap comes cut.
	res, err = e.svc.ReadMany(ctx, fileio.ReadManyRequest{Project: proj, Paths: []string{"d/c.md"}, MaxBytes: 4})
	if err != nil || len(res.Files) != 1 || res.Files[0].Content != "cccc" || !res.Files[0].Truncated || res.Files[0].SizeBytes != 6 {
		t.Errorf("a file over the cap: %+v, %v; want its first 4 bytes, truncated", res, err)
	}
	for _, c := range []struct {
		name string
		req  fileio.ReadManyRequest
	}{
		{"neither", fileio.ReadManyRequest{}},
		{"both", fileio.ReadManyRequest{Paths: []string{"a"}, Glob: "*"}},
		{"too many", fileio.ReadManyRequest{Paths: []string{"a", "b", "c", "d", "e", "f"}}},
		{"bad cursor", fileio.ReadManyRequest{Glob: "*", Cursor: "x"}},
	} {
		c.req.Project = proj
		_, err := e.svc.ReadMany(ctx, c.req)
		wantCode(t, c.name, err, agentfiles.CodeInvalidArgument)
	}
}
