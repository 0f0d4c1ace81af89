package storetest

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

func exerciseConcurrency(t *testing.T, newStore func(t *testing.T) driver.Store) {
	t.Run("Appends", func(t *testing.T) { testConcurrentAppends(t, newEnv(t, newStore)) })
	t.Run("QuotaUnderContention", func(t *testing.T) {
		testQuotaContention(t, newEnv(t, newStore, func(c *fileio.Config) { c.MaxProjectBytes, c.MaxFileBytes = contentionQuota, 1000 }))
	})
	t.Run("MixedOperations", func(t *testing.T) { testMixed(t, newEnv(t, newStore)) })
}

// testConcurrentAppends: 50 goroutines append records to one file. Every record must be
// present exactly once and whole (no write torn or interleaved with another).
func testConcurrentAppends(t *testing.T, e *env) {
	const goroutines, perG = 50, 8
	ctx, _ := newTenant(proj)
	inParallel(goroutines, func(g int) {
		for i := 0; i < perG; i++ {
			// Multi-byte characters make a torn write visible as invalid UTF-8 too.
			rec := fmt.Sprintf("<g%02d-i%d:%s>\n", g, i, strings.Repeat("é日", 1+g%4))
			if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/log/append.txt", Content: rec}); err != nil {
				t.Errorf("append g%d i%d: %v", g, i, err)
			}
		}
	})
	content := e.read(ctx, proj, "/log/append.txt")
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
		var g, i int
		var body string
		if _, err := fmt.Sscanf(line, "<g%02d-i%d:%s", &g, &i, &body); err != nil || !strings.HasSuffix(line, ">") {
			t.Fatalf("torn record %q", line)
		}
		if want := fmt.Sprintf("<g%02d-i%d:%s>", g, i, strings.Repeat("é日", 1+g%4)); line != want {
			t.Fatalf("record %q, want %q", line, want)
		}
		seen[line]++
	}
	if len(seen) != goroutines*perG {
		t.Errorf("%d distinct records, want %d", len(seen), goroutines*perG)
	}
	for rec, n := range seen {
		if n != 1 {
			t.Errorf("record %q appears %d times", rec, n)
		}
	}
	if n := pending(t, e.store); n != 1 {
		t.Errorf("outbox holds %d jobs for one file, want 1", n)
	}
}

// contentionQuota is what ten new files of 100 bytes at "/f00"… take, their change-feed events
// included.
const contentionQuota int64 = 10 * (100 + int64(len("/f00")) + driver.EventOverheadBytes)

// testQuotaContention: 20 writers of 100 new bytes each against a project quota that holds ten
// of them (with their events); exactly 10 succeed, whatever the interleaving.
func testQuotaContention(t *testing.T, e *env) {
	ctx, scope := newTenant(proj)
	var mu sync.Mutex
	codes := map[agentfiles.Code]int{}
	inParallel(20, func(g int) {
		_, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: fmt.Sprintf("/f%02d", g), Content: strings.Repeat("x", 100)})
		mu.Lock()
		codes[agentfiles.ErrorCode(err)]++
		mu.Unlock()
	})
	if codes[noError] != 10 || codes[fileio.CodeQuotaExceeded] != 10 {
		t.Errorf("outcomes %v, want 10 successes and 10 QUOTA_EXCEEDED", codes)
	}
	var total int
	for _, c := range snapshot(t, e.store, scope) {
		total += len(c)
	}
	if total != 1000 {
		t.Errorf("project holds %d bytes of files, want the 1000 that fill the quota with their events", total)
	}
}

// testMixed runs writers, readers, listers and deleters on overlapping paths at once; the
// race detector and the invariants below catch unsafe sharing.
func testMixed(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	inParallel(8, func(g int) {
		for i := 0; i < 40; i++ {
			p := fmt.Sprintf("/d%d/f%d", i%3, (g+i)%5)
			switch (g + i) % 4 {
			case 0:
				e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: p, Content: "abc"})
			case 1:
				if r, err := e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: p, OffsetBytes: 0, LengthBytes: new(int64(-1))}); err == nil && len(r.Content)%3 != 0 {
					t.Errorf("read a partial write: %q", r.Content)
				}
			case 2:
				if l, err := e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: "", Depth: 3, Limit: 0}); err == nil {
					for j := 1; j < len(l.Entries); j++ {
						if l.Entries[j-1].Path >= l.Entries[j].Path {
							t.Errorf("list not sorted: %v", l.Entries)
						}
					}
				}
			case 3:
				e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: fmt.Sprintf("/d%d", i%3), Recursive: true})
			}
		}
	})
}
