package storetest

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/asciifold"
	"github.com/google/go-cmp/cmp"
)

// literalFixture is the project testLiteralGrep searches: CRLF, a byte order mark, a NUL
// byte, case, UTF-8, empty lines and a last line without "\n", below two directories.
var literalFixture = map[string]string{
	"/a.md":          "alpha beta\nBeta gamma\n\nbeta\n",
	"/crlf.txt":      "beta one\r\ntwo\r\nbeta\r\n",
	"/bom.md":        "\uFEFFbeta first\nsecond\n",
	"/nul.bin":       "beta\x00beta\n",
	"/docs/c.md":     "Gamma delta\ngammadelta\n",
	"/docs/d.md":     "no match here\nrate 50%_\\ and 50%x\nFun(X)+yes.zed [abc]^$ {b}\n",
	"/docs/sub/e.md": "café beta\nCAFÉ BETA\nlast beta",
	"/docs/f.md":     "betabeta beta\n",
	"/z.txt":         "",
}

// testLiteralGrep checks a driver.LiteralGrepper against a line scan of the same files:
// every question of the table, in pages of every limit, and with a byte bound. A store that
// declines a question must decline it on every page. Stores without the interface skip it.
func testLiteralGrep(t *testing.T, s driver.Store) {
	ExerciseLiteralGrep(t, s, nil)
}

// ExerciseLiteralGrep runs the contract of driver.LiteralGrepper on s (skipped when its ReadTx
// does not implement it) after writing its fixture, and again after settle when settle is
// not nil: pgstore's tests index the files for grep in between, so that both the indexed and
// the unindexed files are covered.
func ExerciseLiteralGrep(t *testing.T, s driver.Store, settle func(t *testing.T)) {
	ctx := context.Background()
	_, scope := newTenant("p")
	_, other := newTenant("p")
	putContents(t, s, other, map[string]string{"/a.md": "beta\n"})
	putContents(t, s, scope, literalFixture)
	var supported bool
	if err := s.View(ctx, scope, func(tx driver.ReadTx) error { _, supported = tx.(driver.LiteralGrepper); return nil }); err != nil {
		t.Fatal(err)
	}
	if !supported {
		t.Log("the store does not implement driver.LiteralGrepper: nothing to check")
		return
	}
	checkLiteralGrep(t, s, scope)
	if settle != nil {
		settle(t)
		checkLiteralGrep(t, s, scope)
	}
}

func checkLiteralGrep(t *testing.T, s driver.Store, scope driver.Scope) {
	t.Helper()
	cases := []driver.LiteralGrep{
		{Prefix: "/", Literals: []string{"beta"}, CountLines: true},
		{Prefix: "/", Literals: []string{"beta"}},
		{Prefix: "/", Literals: []string{"beta"}, IgnoreCase: true, CountLines: true},
		{Prefix: "/", Literals: []string{"gamma", "delta"}, CountLines: true},
		{Prefix: "/", Literals: []string{"gamma", "delta"}, IgnoreCase: true, CountLines: true},
		{Prefix: "/docs/", Literals: []string{"beta"}, IgnoreCase: true, CountLines: true},
		{Prefix: "/", After: "/crlf.txt", Literals: []string{"beta"}, CountLines: true},
		{Prefix: "/", Literals: []string{"café beta"}, CountLines: true},
		{Prefix: "/", Literals: []string{"beta\r"}, CountLines: true},
		{Prefix: "/", Literals: []string{"50%_\\"}, CountLines: true},
		{Prefix: "/", Literals: []string{"rate 50%_\\", "fun(x)+yes.", "[abc]^$ {b}"}, CountLines: true},
		{Prefix: "/", Literals: []string{"fun(x)+yes.", "gamma"}, IgnoreCase: true, CountLines: true},
		{Prefix: "/", Literals: []string{"Fun(X)+yes.", "abc?d*"}, CountLines: true},
		{Prefix: "/", Literals: []string{"be"}, CountLines: true}, // too short for a trigram: may decline
	}
	for _, c := range cases {
		want := referenceLiteralGrep(c)
		for _, limit := range []int{1, 2, 100} {
			for _, maxRead := range []int64{0, 1, 20} {
				c.Limit, c.MaxReadBytes = limit, maxRead
				got, declined := pagedLiteralGrep(t, s, scope, c)
				if declined {
					continue
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("GrepLiterals %+v (-reference +got):\n%s", c, diff)
				}
			}
		}
	}
}

// pagedLiteralGrep follows GrepLiterals from c.After to the end and returns "path:lines" (or
// "path" without CountLines), or true when the store declined.
func pagedLiteralGrep(t *testing.T, s driver.Store, scope driver.Scope, c driver.LiteralGrep) ([]string, bool) {
	t.Helper()
	ctx := context.Background()
	out := []string{}
	declined := false
	err := s.View(ctx, scope, func(tx driver.ReadTx) error {
		lg := tx.(driver.LiteralGrepper)
		for page := 0; ; page++ {
			files, ok, err := lg.GrepLiterals(ctx, c)
			switch {
			case err != nil:
				return err
			case !ok && page > 0:
				return fmt.Errorf("declined on page %d after answering the first", page)
			case !ok:
				declined = true
				return nil
			}
			var read int64
			for i, f := range files {
				if f.Path <= c.After || !strings.HasPrefix(f.Path, c.Prefix) || f.Lines < 1 {
					return fmt.Errorf("file %+v for %+v", f, c)
				}
				if c.MaxReadBytes > 0 && i > 0 && read >= c.MaxReadBytes {
					return fmt.Errorf("file %d (%s) after %d bytes of files, more than MaxReadBytes %d", i, f.Path, read, c.MaxReadBytes)
				}
				if f.SizeBytes != int64(len(literalFixture[f.Path])) {
					return fmt.Errorf("%s: SizeBytes %d, want %d", f.Path, f.SizeBytes, len(literalFixture[f.Path]))
				}
				read += f.SizeBytes
				entry := f.Path
				if c.CountLines {
					entry = fmt.Sprintf("%s:%d", f.Path, f.Lines)
				}
				out = append(out, entry)
				c.After = f.Path
			}
			if len(files) > c.Limit {
				return fmt.Errorf("%d files, limit %d", len(files), c.Limit)
			}
			if len(files) < c.Limit && (c.MaxReadBytes <= 0 || read < c.MaxReadBytes) {
				return nil
			}
			if page > len(literalFixture) {
				return fmt.Errorf("pages never end")
			}
		}
	})
	if err != nil {
		t.Fatalf("GrepLiterals %+v: %v", c, err)
	}
	return out, declined
}

// referenceLiteralGrep scans literalFixture line by line as c asks.
func referenceLiteralGrep(c driver.LiteralGrep) []string {
	out := []string{}
	for _, path := range sortedKeys(literalFixture) {
		content := []byte(literalFixture[path])
		if path <= c.After || !strings.HasPrefix(path, c.Prefix) || bytes.IndexByte(content, 0) >= 0 {
			continue
		}
		n := 0
		for _, line := range bytes.Split(bytes.TrimPrefix(content, []byte("\uFEFF")), []byte("\n")) {
			for _, l := range c.Literals {
				if (c.IgnoreCase && asciifold.Index(line, l) >= 0) || (!c.IgnoreCase && bytes.Contains(line, []byte(l))) {
					n++
					break
				}
			}
		}
		switch {
		case n == 0:
		case c.CountLines:
			out = append(out, fmt.Sprintf("%s:%d", path, n))
		default:
			out = append(out, path)
		}
	}
	return out
}

// putContents writes files (path: content) in scope, in one transaction.
func putContents(t *testing.T, s driver.Store, scope driver.Scope, files map[string]string) {
	t.Helper()
	ctx := context.Background()
	err := s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		for _, p := range sortedKeys(files) {
			if _, err := tx.Put(ctx, p, []byte(files[p]), driver.PutOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func sortedKeys(m map[string]string) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
	return keys
}
