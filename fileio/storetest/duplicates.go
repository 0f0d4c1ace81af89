package storetest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/patch"
)

// The NFC and NFD spellings of one file name: the Service stores the first, and takes either.
const (
	cafeNFC = "caf\u00e9.txt"
	cafeNFD = "cafe\u0301.txt"
)

// exerciseDuplicatePaths: a request that names one file twice, in spellings that normalize to
// the same path, is refused with INVALID_ARGUMENT and changes nothing, whichever spelling a
// map iteration or a loop meets first.
func exerciseDuplicatePaths(t *testing.T, newStore func(t *testing.T) driver.Store) {
	t.Run("ExpectedSHA256", func(t *testing.T) { testDuplicateExpectedSHA256(t, newEnv(t, newStore)) })
	t.Run("ReadManyAndOperations", func(t *testing.T) { testDuplicateReadManyAndOperations(t, newEnv(t, newStore)) })
	t.Run("ImportEntries", func(t *testing.T) { testDuplicateImportEntries(t, newEnv(t, newStore)) })
}

// duplicateAttempts is how many times each two-spelling patch is sent: before the Service
// refused them, the map's iteration order let 18 to 21 of 40 dry runs through.
const duplicateAttempts = 40

// testDuplicateExpectedSHA256: file_apply_patch's expected_sha256 with the right hash under one
// spelling of a path and a wrong one under another is refused 40 times of 40, dry run or not,
// and the file keeps its content.
func testDuplicateExpectedSHA256(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.seed(ctx, map[string]string{"/a.txt": "one\n", "/" + cafeNFC: "one\n"})
	right := fileio.SHA256Hex([]byte("one\n"))
	wrong := fileio.SHA256Hex([]byte("something else\n"))
	cases := []struct {
		name, target string
		expected     map[string]string
	}{
		{"a.txt and /a.txt", "a.txt", map[string]string{"a.txt": right, "/a.txt": wrong}},
		{"/a.txt and ./a.txt", "a.txt", map[string]string{"/a.txt": wrong, "./a.txt": right}},
		{"NFC and NFD", cafeNFC, map[string]string{cafeNFC: right, "/" + cafeNFD: wrong}},
	}
	for _, c := range cases {
		refused := 0
		for i := range duplicateAttempts {
			_, err := e.svc.ApplyPatch(ctx, fileio.ApplyPatchRequest{Project: proj, DryRun: i%2 == 0, ExpectedSHA256: c.expected,
				Patch: "*** Begin Patch\n*** Update File: " + c.target + "\n@@\n-one\n+two\n*** End Patch\n"})
			if agentfiles.ErrorCode(err) == agentfiles.CodeInvalidArgument {
				refused++
			}
			if i == 0 {
				wantMessage(t, c.name, err, "expected_sha256 names", "give each file once")
			}
		}
		if refused != duplicateAttempts {
			t.Errorf("%s: %d of %d patches refused with INVALID_ARGUMENT, want all", c.name, refused, duplicateAttempts)
		}
	}
	for _, p := range []string{"/a.txt", "/" + cafeNFC} {
		if got := e.read(ctx, proj, p); got != "one\n" {
			t.Errorf("%s after the refused patches = %q, want it unchanged", p, got)
		}
	}
	// One spelling alone still works: the check is on names, not on a second key.
	if _, err := e.svc.ApplyPatch(ctx, fileio.ApplyPatchRequest{Project: proj, ExpectedSHA256: map[string]string{cafeNFD: right},
		Patch: "*** Begin Patch\n*** Update File: " + cafeNFC + "\n@@\n-one\n+two\n*** End Patch\n"}); err != nil {
		t.Errorf("a patch with one expected_sha256 key in NFD: %v", err)
	}
}

// testDuplicateReadManyAndOperations: file_read_many's paths and file_apply_patch's operations
// that name one file twice are INVALID_ARGUMENT; a patch text that does is INVALID_PATCH.
func testDuplicateReadManyAndOperations(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.seed(ctx, map[string]string{"/a.txt": "one\n", "/" + cafeNFC: "one\n"})
	for _, paths := range [][]string{{"a.txt", "/a.txt"}, {"./a.txt", " a.txt"}, {cafeNFC, cafeNFD}, {"x", "x"}} {
		_, err := e.svc.ReadMany(ctx, fileio.ReadManyRequest{Project: proj, Paths: paths})
		wantCode(t, "read_many of "+strings.Join(paths, ", "), err, agentfiles.CodeInvalidArgument)
		wantMessage(t, "read_many of "+strings.Join(paths, ", "), err, "give each file once")
	}
	ops := []patch.Operation{
		{Type: "update_file", Path: cafeNFC, Diff: "@@\n-one\n+two\n"},
		{Type: "delete_file", Path: "/" + cafeNFD},
	}
	_, err := e.svc.ApplyPatch(ctx, fileio.ApplyPatchRequest{Project: proj, Operations: ops})
	wantCode(t, "operations naming one file twice", err, agentfiles.CodeInvalidArgument)
	_, err = e.svc.ApplyPatch(ctx, fileio.ApplyPatchRequest{Project: proj,
		Patch: "*** Begin Patch\n*** Update File: " + cafeNFC + "\n@@\n-one\n+two\n*** Delete File: " + cafeNFD + "\n*** End Patch\n"})
	wantCode(t, "a patch text naming one file twice", err, fileio.CodeInvalidPatch)
	if got := e.read(ctx, proj, "/"+cafeNFC); got != "one\n" {
		t.Errorf("after the refused patches the file holds %q", got)
	}
}

// testDuplicateImportEntries: an archive whose entries name one path twice ("a.txt" and
// "./a.txt", NFC and NFD) is refused in every format, and nothing is imported.
func testDuplicateImportEntries(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	for _, names := range [][2]string{{"a.txt", "./a.txt"}, {"d/" + cafeNFC, "d/" + cafeNFD}, {"b.txt", "b.txt"}} {
		for _, format := range []archive.Format{archive.Tar, archive.TarGz, archive.Zip} {
			data := BuildArchive(t, format, []ArchiveEntry{{Name: names[0], Content: "first\n"}, {Name: names[1], Content: "second\n"}})
			_, err := e.svc.Import(ctx, fileio.ImportRequest{Project: proj, Archive: bytes.NewReader(data)})
			what := string(format) + " with " + names[0] + " and " + names[1]
			wantCode(t, what, err, agentfiles.CodeInvalidArgument)
			wantMessage(t, what, err, "both name", "nothing was imported")
		}
	}
	if files := ReadProject(t, ctx, e.svc, proj); len(files) != 0 {
		t.Errorf("the refused imports left files: %v", files)
	}
}
