package fileio_test

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/google/go-cmp/cmp"
)

// FuzzApplyPatch: whatever the patch, ApplyPatch changes every file it reports or none: after
// an error the project is as before; after success each reported file has the reported sha256
// and every other file is untouched.
func FuzzApplyPatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** Add File: c.txt\n+new\n*** Delete File: b.txt\n*** End Patch\n")
	f.Add("*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+1\n*** Update File: b.txt\n@@\n-nope\n+x\n*** End Patch\n")
	f.Add("diff --git a/a.txt b/d/e.txt\nrename from a.txt\nrename to d/e.txt\n--- a/a.txt\n+++ b/d/e.txt\n@@ -2 +2 @@\n-two\n+2\n")
	f.Add("*** Begin Patch\n*** Update File: b.txt\n*** Move to: a.txt\n*** End Patch\n")
	before := map[string]string{"/a.txt": "one\ntwo\nthree\n", "/b.txt": "x\r\ny\r\n", "/d/f.txt": "f"}
	f.Fuzz(func(t *testing.T, text string) {
		svc := newSvc(t, newMem(), nil)
		ctx := authed("fuzz")
		for p, c := range before {
			if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: p, Content: c}); err != nil {
				t.Fatal(err)
			}
		}
		res, err := svc.ApplyPatch(context.WithoutCancel(ctx), fileio.ApplyPatchRequest{Project: "p", Patch: text})
		after := storetest.ReadProject(t, ctx, svc, "p")
		if err != nil {
			if diff := cmp.Diff(before, after); diff != "" {
				t.Fatalf("a refused patch (%v) changed the project (-before +after):\n%s", err, diff)
			}
			return
		}
		want := map[string]string{}
		for k, v := range before {
			want[k] = v
		}
		for _, pf := range res.Files {
			delete(want, pf.MovedFrom)
			if pf.Operation == "delete" {
				delete(want, pf.Path)
				continue
			}
			content, ok := after[pf.Path]
			if !ok || fileio.SHA256Hex([]byte(content)) != pf.SHA256 {
				t.Fatalf("%s: reported sha256 %s, stored %q", pf.Path, pf.SHA256, content)
			}
			want[pf.Path] = content
		}
		if diff := cmp.Diff(want, after); diff != "" {
			t.Fatalf("files the answer does not report changed (-want +got):\n%s", diff)
		}
	})
}
