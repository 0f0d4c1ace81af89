package patch_test

import (
	"context"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/patch"
)

// FuzzParseApply: no text makes Parse or ApplyUpdate panic; every error is coded; a patch of
// valid UTF-8 applied to valid UTF-8 gives valid UTF-8.
func FuzzParseApply(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a\n@@ f\n a\n-b\n+c\n*** End of File\n*** End Patch\n", "f\na\nb\n")
	f.Add("<<'EOF'\n*** Begin Patch\n*** Add File: x\n+1\n*** Delete File: y\n*** End Patch\nEOF", "")
	f.Add("diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", "a\r\nb")
	f.Add("--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n", "\uFEFFq\n")
	f.Add("*** Begin Patch\n*** Update File: a\n@@\n x – “y”\n-z\n*** End Patch", "x - \"y\"\nz")
	f.Fuzz(func(t *testing.T, text, content string) {
		p, err := patch.Parse(text)
		if err != nil {
			requireCoded(t, err)
			return
		}
		for _, fp := range p.Files {
			switch fp.Op {
			case patch.OpUpdate:
				out, _, err := patch.ApplyUpdate(context.Background(), content, fp, &patch.Budget{MaxWorkBytes: 1 << 20})
				if err != nil {
					requireCoded(t, err)
					continue
				}
				if utf8.ValidString(text) && utf8.ValidString(content) && !utf8.ValidString(out) {
					t.Fatalf("valid UTF-8 in, invalid out: %q", out)
				}
			case patch.OpDelete:
				if err := patch.CheckDelete(context.Background(), content, fp, nil); err != nil {
					requireCoded(t, err)
				}
			}
		}
	})
}

func requireCoded(t *testing.T, err error) {
	t.Helper()
	var e *agentfiles.Error
	if !errors.As(err, &e) || e.Message == "" {
		t.Fatalf("error %v is not a coded *agentfiles.Error with a message", err)
	}
}
