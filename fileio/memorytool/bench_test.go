package memorytool_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memorytool"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
)

// BenchmarkStrReplace: str_replace of one line of a memory file on memstore, against the
// reference fileio.Service.Edit making the same one-line change directly, run alternately in
// one loop (each undoes the other's change). The memory tool does more: it reads the file to
// find old_str and its line, checks that it occurs once, edits with ExpectedSHA256, and renders
// a numbered snippet. Reported: memory-ns/op, edit-ns/op and their ratio memory/edit.
func BenchmarkStrReplace(b *testing.B) {
	for _, size := range []int{4 << 10, 64 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("file=%dKiB", size>>10), func(b *testing.B) {
			svc := storetest.NewService(b, memstore.New(memstore.Options{}))
			mem := newTool(b, svc)
			ctx := alice()
			var sb strings.Builder
			for i := 0; sb.Len() < size; i++ {
				fmt.Fprintf(&sb, "- note %06d: something worth remembering about the project\n", i)
			}
			content := sb.String()
			target := fmt.Sprintf("- note %06d:", strings.Count(content, "\n")/2) // a line in the middle
			if _, err := mem.Run(ctx, memorytool.Input{Command: "create", Path: "/memories/notes.md", FileText: content}); err != nil {
				b.Fatal(err)
			}
			changed := target + " (changed)"
			var memT, editT time.Duration
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				if _, err := mem.Run(ctx, memorytool.Input{Command: "str_replace", Path: "/memories/notes.md", OldStr: target, NewStr: changed}); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := svc.Edit(ctx, fileio.EditRequest{Project: memorytool.DefaultProject, Path: "/notes.md",
					Edits: []fileio.Edit{{OldStr: changed, NewStr: target}}}); err != nil {
					b.Fatal(err)
				}
				memT += t1.Sub(t0)
				editT += time.Since(t1)
			}
			b.ReportMetric(float64(memT.Nanoseconds())/float64(b.N), "memory-ns/op")
			b.ReportMetric(float64(editT.Nanoseconds())/float64(b.N), "edit-ns/op")
			b.ReportMetric(float64(memT)/float64(editT), "memory/edit")
		})
	}
}
