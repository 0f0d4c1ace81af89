package storetest

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/google/go-cmp/cmp"
)

// ArchiveEntry is one entry of an archive a test builds with BuildArchive.
type ArchiveEntry struct {
	Name    string
	Content string
	Type    byte   // tar type flag; 0 is a regular file
	Link    string // for links
}

// BuildArchive returns a tar, tar.gz or zip archive of entries, as a client would send it.
func BuildArchive(t testing.TB, format archive.Format, entries []ArchiveEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	var err error
	switch format {
	case archive.Zip:
		zw := zip.NewWriter(&buf)
		for _, e := range entries {
			h := &zip.FileHeader{Name: e.Name, Method: zip.Deflate}
			switch e.Type {
			case tar.TypeSymlink:
				h.SetMode(fs.ModeSymlink | 0o777)
			case tar.TypeDir:
				h.SetMode(fs.ModeDir | 0o755)
			default:
				h.SetMode(0o644)
			}
			var w io.Writer
			if w, err = zw.CreateHeader(h); err == nil {
				_, err = io.WriteString(w, e.Content+e.Link)
			}
			if err != nil {
				break
			}
		}
		if err == nil {
			err = zw.Close()
		}
	default:
		var out io.Writer = &buf
		var gz *gzip.Writer
		if format == archive.TarGz {
			gz = gzip.NewWriter(&buf)
			out = gz
		}
		tw := tar.NewWriter(out)
		for _, e := range entries {
			h := &tar.Header{Name: e.Name, Typeflag: e.Type, Linkname: e.Link, Mode: 0o644, Size: int64(len(e.Content)), Format: tar.FormatPAX}
			if h.Typeflag == 0 {
				h.Typeflag = tar.TypeReg
			}
			if h.Typeflag != tar.TypeReg {
				h.Size = 0
			}
			if err = tw.WriteHeader(h); err == nil && h.Size > 0 {
				_, err = io.WriteString(tw, e.Content)
			}
			if err != nil {
				break
			}
		}
		if err == nil {
			err = tw.Close()
		}
		if err == nil && gz != nil {
			err = gz.Close()
		}
	}
	if err != nil {
		t.Fatalf("building a %s archive: %v", format, err)
	}
	return buf.Bytes()
}

// ReadArchive returns the regular files of an archive by name.
func ReadArchive(t testing.TB, data []byte) map[string]string {
	t.Helper()
	ar, err := archive.Open(bytes.NewReader(data), archive.Limits{})
	if err != nil {
		t.Fatalf("reading the archive: %v", err)
	}
	defer ar.Close()
	out := map[string]string{}
	for {
		e, err := ar.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("reading the archive: %v", err)
		}
		b, err := io.ReadAll(ar)
		if err != nil {
			t.Fatalf("reading entry %s: %v", e.Name, err)
		}
		out[e.Name] = string(b)
	}
}

// treeFiles reads the regular files below root (skipping .git) by slash-separated relative name.
func treeFiles(t testing.TB, root string, maxFiles int) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() || len(out) >= maxFiles {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s: %v", root, err)
	}
	return out
}

// ExerciseArchiveTree imports up to maxFiles regular files of the directory tree at root
// (a real repository, say) as a tar.gz, together with names that have spaces, non-ASCII
// letters and NFD spellings and a binary file, then exports the directory in each format and
// checks that the names and bytes come back, the binary file listed as skipped.
func ExerciseArchiveTree(t *testing.T, store driver.Store, root string, maxFiles int) {
	files := treeFiles(t, root, maxFiles)
	files["notes/meeting notes.md"] = "# Meeting\n\nagenda\n"
	files["notes/caf\u00e9 cr\u00e8me.md"] = "NFC name\n"
	files["docs/\u65e5\u672c\u8a9e/\u8aac\u660e (draft).txt"] = "\u8aac\u660e\n"
	files["empty file"] = ""
	want := map[string]string{}
	var entries []ArchiveEntry
	var skipped []string
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := files[n]
		entries = append(entries, ArchiveEntry{Name: "./" + n, Content: c})
		if utf8.ValidString(c) && int64(len(c)) <= fileio.DefaultMaxFileBytes {
			want[n] = c
		} else {
			skipped = append(skipped, "./"+n)
		}
	}
	entries = append(entries, ArchiveEntry{Name: "./notes/", Type: tar.TypeDir}, ArchiveEntry{Name: "bin/blob.bin", Content: "\x00\xff\xfe binary"})
	skipped = append(skipped, "bin/blob.bin")
	svc := NewService(t, store, func(c *fileio.Config) { c.MaxProjectBytes = 1 << 30 })
	ctx, _ := newTenant(proj)
	res, err := svc.Import(ctx, fileio.ImportRequest{Project: proj, Path: "/repo", Archive: bytes.NewReader(BuildArchive(t, archive.TarGz, entries))})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	var gotSkipped []string
	for _, s := range res.Skipped {
		gotSkipped = append(gotSkipped, s.Entry)
	}
	sort.Strings(skipped)
	sort.Strings(gotSkipped)
	if diff := cmp.Diff(skipped, gotSkipped); diff != "" || res.Files != len(want) || res.Format != "tar.gz" {
		t.Errorf("import: %d files (want %d), format %s; skipped (-want +got):\n%s", res.Files, len(want), res.Format, diff)
	}
	// An NFD spelling of an imported name reads the same file.
	if got, err := svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: "/repo/notes/cafe\u0301 cre\u0300me.md", OffsetBytes: 0, LengthBytes: new(int64(fileio.ReadToEOF))}); err != nil || got.Content != "NFC name\n" {
		t.Errorf("read by the NFD spelling: %q, %v", got.Content, err)
	}
	for _, format := range []archive.Format{archive.Tar, archive.TarGz, archive.Zip} {
		var buf bytes.Buffer
		exp, err := svc.Export(ctx, fileio.ExportRequest{Project: proj, Path: "/repo", Format: format}, &buf)
		if err != nil {
			t.Fatalf("export %s: %v", format, err)
		}
		if diff := cmp.Diff(want, ReadArchive(t, buf.Bytes())); diff != "" || exp.Files != len(want) {
			t.Errorf("export %s: %d files; (-imported +exported):\n%s", format, exp.Files, diff)
		}
	}
}

// sixtyByteFiles is n entries "1", "2", … of 60 bytes each.
func sixtyByteFiles(n int) []ArchiveEntry {
	out := make([]ArchiveEntry, n)
	for i := range out {
		out[i] = ArchiveEntry{Name: strconv.Itoa(i + 1), Content: strings.Repeat("x", 60)}
	}
	return out
}

// testArchives checks Import's refusals (nothing half imported), its modes and Export's
// options on one store.
func testArchives(t *testing.T, newStore func(t *testing.T) driver.Store) {
	// 400 bytes of files, and the change-feed events of the test's changes (at most 16, none
	// with a path longer than the one measured).
	quota := 400 + 16*driver.EventBytes("/site/docs/b c.md")
	e := newEnv(t, newStore, func(c *fileio.Config) { c.MaxFileBytes, c.MaxProjectBytes = 64, quota })
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/keep.md", "kept\n")
	e.write(ctx, proj, "/site/old.md", "old\n")
	ok := ArchiveEntry{Name: "a.md", Content: "a\n"}
	refusals := []struct {
		name    string
		entries []ArchiveEntry
		code    agentfiles.Code
		message string
	}{
		{"dot-dot", []ArchiveEntry{ok, {Name: "docs/../../etc/passwd", Content: "x"}}, agentfiles.CodeInvalidArgument, `"docs/../../etc/passwd"`},
		{"absolute", []ArchiveEntry{ok, {Name: "/etc/passwd", Content: "x"}}, agentfiles.CodeInvalidArgument, "absolute"},
		{"backslash", []ArchiveEntry{ok, {Name: `..\x.md`, Content: "x"}}, agentfiles.CodeInvalidArgument, "backslash"},
		{"link named out", []ArchiveEntry{ok, {Name: "../link", Type: tar.TypeSymlink, Link: "a.md"}}, agentfiles.CodeInvalidArgument, `"../link"`},
		{"device", []ArchiveEntry{ok, {Name: "dev", Type: tar.TypeChar}}, agentfiles.CodeInvalidArgument, "special file"},
		{"duplicate", []ArchiveEntry{ok, {Name: "./a.md", Content: "b"}}, agentfiles.CodeInvalidArgument, `"a.md" and "./a.md" both name /site/a.md`},
		{"NFC duplicate", []ArchiveEntry{{Name: "caf\u00e9", Content: "1"}, {Name: "cafe\u0301", Content: "2"}}, agentfiles.CodeInvalidArgument, "both name"},
		{"file and directory", []ArchiveEntry{ok, {Name: "a.md/b", Content: "x"}}, agentfiles.CodeInvalidArgument, "which is a file"},
		{"directory and file", []ArchiveEntry{{Name: "d/b", Content: "x"}, {Name: "d", Content: "x"}}, agentfiles.CodeInvalidArgument, `"d" is a file`},
		{"invalid name", []ArchiveEntry{ok, {Name: "a\u200bb", Content: "x"}}, fileio.CodeInvalidPath, "U+200B"},
		{"file over quota", []ArchiveEntry{ok, {Name: "big.md", Content: strings.Repeat("x", 65)}}, fileio.CodeQuotaExceeded, `"big.md" is larger`},
		{"project over quota", append([]ArchiveEntry{ok}, sixtyByteFiles(int(quota/60)+1)...), fileio.CodeQuotaExceeded, "quota"},
	}
	before := projectState(t, e, ctx)
	for _, format := range []archive.Format{archive.Tar, archive.TarGz, archive.Zip} {
		for _, tc := range refusals {
			if format == archive.Zip && tc.name == "device" {
				continue // zip has no such entries
			}
			_, err := e.svc.Import(ctx, fileio.ImportRequest{Project: proj, Path: "/site", Archive: bytes.NewReader(BuildArchive(t, format, tc.entries))})
			wantCode(t, string(format)+" "+tc.name, err, tc.code)
			wantMessage(t, string(format)+" "+tc.name, err, tc.message)
		}
	}
	_, err := e.svc.Import(ctx, fileio.ImportRequest{Project: proj, Path: "/site", Strict: true,
		Archive: bytes.NewReader(BuildArchive(t, archive.Tar, []ArchiveEntry{ok, {Name: "x.bin", Content: "\xff"}}))})
	wantCode(t, "strict with a binary file", err, agentfiles.CodeInvalidArgument)
	for _, format := range []archive.Format{archive.Tar, archive.Zip} {
		_, err = e.svc.Import(ctx, fileio.ImportRequest{Project: proj, Path: "/site", Strict: true,
			Archive: bytes.NewReader(BuildArchive(t, format, []ArchiveEntry{ok, {Name: "link", Type: tar.TypeSymlink, Link: "/etc/passwd"}}))})
		wantCode(t, string(format)+" strict with a link", err, agentfiles.CodeInvalidArgument)
		wantMessage(t, string(format)+" strict with a link", err, `"link" is a link (to "/etc/passwd")`)
	}
	_, err = e.svc.Import(ctx, fileio.ImportRequest{Project: proj, Path: "/site", Archive: strings.NewReader("just some text, not an archive")})
	wantCode(t, "not an archive", err, agentfiles.CodeInvalidArgument)
	cut := BuildArchive(t, archive.Tar, []ArchiveEntry{ok, {Name: "b.md", Content: strings.Repeat("y", 50)}})
	_, err = e.svc.Import(ctx, fileio.ImportRequest{Project: proj, Path: "/site", Archive: bytes.NewReader(cut[:len(cut)-1024-20])})
	wantCode(t, "an archive cut short", err, agentfiles.CodeInvalidArgument)
	_, err = e.svc.Import(ctx, fileio.ImportRequest{Project: proj, Path: "/keep.md", Archive: bytes.NewReader(BuildArchive(t, archive.Tar, []ArchiveEntry{ok}))})
	wantCode(t, "import below a file", err, fileio.CodeNotDirectory)
	_, err = e.svc.Import(ctx, fileio.ImportRequest{Project: proj, Archive: bytes.NewReader(BuildArchive(t, archive.Tar, []ArchiveEntry{{Name: "site", Content: "x"}}))})
	wantCode(t, "merge a file over a directory", err, agentfiles.CodeIsDirectory)
	if diff := cmp.Diff(before, projectState(t, e, ctx)); diff != "" {
		t.Errorf("a refused import changed the project (-before +after):\n%s", diff)
	}

	// Merge writes and keeps the rest; replace makes the directory equal to the archive.
	res, err := e.svc.Import(ctx, fileio.ImportRequest{Project: proj, Path: "/site", Archive: bytes.NewReader(BuildArchive(t, archive.Zip,
		[]ArchiveEntry{ok, {Name: "docs/", Type: tar.TypeDir}, {Name: "docs/b c.md", Content: "b\n"}, {Name: "old.md", Content: "new\n"}, {Name: "x.bin", Content: "\xff"},
			{Name: "latest.md", Type: tar.TypeSymlink, Link: "../../etc/passwd"}, {Name: "./", Type: tar.TypeDir}}))})
	want := fileio.ImportResult{Format: "zip", Path: "/site", Files: 3, Created: 2, Replaced: 1, Bytes: 8, SkippedTotal: 2,
		Skipped: []fileio.SkippedImport{{Entry: "x.bin", Path: "/site/x.bin", Reason: "not UTF-8 text (a binary file?); files hold text only"},
			{Entry: "latest.md", Path: "/site/latest.md", Reason: `a link to "../../etc/passwd"; links are not imported: a project holds files, and a link is never followed`}}}
	if diff := cmp.Diff(want, res); err != nil || diff != "" {
		t.Errorf("merge: %v (-want +got):\n%s", err, diff)
	}
	if got := e.read(ctx, proj, "/site/old.md"); got != "new\n" {
		t.Errorf("merged /site/old.md = %q", got)
	}
	if vs, err := e.svc.Versions(ctx, fileio.VersionsRequest{Project: proj, Path: "/site/old.md"}); err != nil || len(vs) != 2 {
		t.Errorf("versions of a file the import replaced: %+v, %v; want the old one kept", vs, err)
	}
	res, err = e.svc.Import(ctx, fileio.ImportRequest{Project: proj, Path: "/site", Mode: fileio.ImportReplace,
		Archive: bytes.NewReader(BuildArchive(t, archive.Tar, []ArchiveEntry{{Name: "./", Type: tar.TypeDir}, {Name: "docs", Content: "now a file\n"}, ok, {Name: "same.md", Type: tar.TypeLink, Link: "a.md"}}))})
	want = fileio.ImportResult{Format: "tar", Path: "/site", Files: 2, Created: 1, Replaced: 1, Deleted: 2, Bytes: 13, SkippedTotal: 1,
		Skipped: []fileio.SkippedImport{{Entry: "same.md", Path: "/site/same.md", Reason: `a link to "a.md"; links are not imported: a project holds files, and a link is never followed`}}}
	if diff := cmp.Diff(want, res); err != nil || diff != "" {
		t.Errorf("replace: %v (-want +got):\n%s", err, diff)
	}
	// An archive of many links answers with the first MaxSkippedListed and their count.
	var links []ArchiveEntry
	for i := range fileio.MaxSkippedListed + 50 {
		links = append(links, ArchiveEntry{Name: fmt.Sprintf("l%d", i), Type: tar.TypeSymlink, Link: "a.md"})
	}
	res, err = e.svc.Import(ctx, fileio.ImportRequest{Project: proj, Path: "/links", Archive: bytes.NewReader(BuildArchive(t, archive.Tar, links))})
	if err != nil || len(res.Skipped) != fileio.MaxSkippedListed || res.SkippedTotal != len(links) || res.Files != 0 {
		t.Errorf("an archive of %d links: %d listed, %d skipped in all, %d files, %v", len(links), len(res.Skipped), res.SkippedTotal, res.Files, err)
	}
	state := projectState(t, e, ctx)
	wantState := map[string]string{"/keep.md": "kept\n", "/site/a.md": "a\n", "/site/docs": "now a file\n"}
	if diff := cmp.Diff(wantState, state); diff != "" {
		t.Errorf("after replace (-want +got):\n%s", diff)
	}
	_, err = e.svc.Import(ctx, fileio.ImportRequest{Project: proj, Path: "/site", Mode: fileio.ImportReplace, Archive: bytes.NewReader(BuildArchive(t, archive.Tar, nil))})
	wantCode(t, "replace with an empty archive", err, agentfiles.CodeInvalidArgument)
	_, err = e.svc.Import(ctx, fileio.ImportRequest{Project: proj, Mode: "overwrite", Archive: bytes.NewReader(BuildArchive(t, archive.Tar, []ArchiveEntry{ok}))})
	wantCode(t, "unknown mode", err, agentfiles.CodeInvalidArgument)

	// Export: a glob, one file, a missing path.
	var buf bytes.Buffer
	if _, err := e.svc.Export(ctx, fileio.ExportRequest{Project: proj, Glob: "*.md", Format: archive.Zip}, &buf); err != nil {
		t.Fatalf("export with a glob: %v", err)
	}
	if diff := cmp.Diff(map[string]string{"keep.md": "kept\n", "site/a.md": "a\n"}, ReadArchive(t, buf.Bytes())); diff != "" {
		t.Errorf("export *.md (-want +got):\n%s", diff)
	}
	buf.Reset()
	if _, err := e.svc.Export(ctx, fileio.ExportRequest{Project: proj, Path: "/site/a.md"}, &buf); err != nil {
		t.Fatalf("export of a file: %v", err)
	}
	if diff := cmp.Diff(map[string]string{"a.md": "a\n"}, ReadArchive(t, buf.Bytes())); diff != "" {
		t.Errorf("export of one file (-want +got):\n%s", diff)
	}
	_, err = e.svc.Export(ctx, fileio.ExportRequest{Project: proj, Path: "/nope"}, io.Discard)
	wantCode(t, "export of a missing path", err, agentfiles.CodeNotFound)
	_, err = e.svc.Export(ctx, fileio.ExportRequest{Project: proj, Format: "rar"}, io.Discard)
	wantCode(t, "export in an unknown format", err, agentfiles.CodeInvalidArgument)
}

// projectState returns every file of the project with its content.
func projectState(t *testing.T, e *env, ctx context.Context) map[string]string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := e.svc.Export(ctx, fileio.ExportRequest{Project: proj}, &buf); err != nil {
		t.Fatalf("export: %v", err)
	}
	out := map[string]string{}
	for name, c := range ReadArchive(t, buf.Bytes()) {
		out["/"+name] = c
	}
	return out
}
