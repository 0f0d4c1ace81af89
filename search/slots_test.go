package search_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/memindex"
)

// heldEmbedder is an embedder whose calls for one tenant wait until released, as a slow
// embedding API would: the search that calls it holds its slot meanwhile.
type heldEmbedder struct {
	search.Embedder
	tenant  string
	entered chan struct{}
	release chan struct{}
}

func (e *heldEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if ac, ok := agentfiles.AuthFromContext(ctx); ok && ac.TenantID() == e.tenant {
		e.entered <- struct{}{}
		select {
		case <-e.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return e.Embedder.Embed(ctx, texts)
}

// TestSearchSlots: each tenant's searches run at most MaxConcurrentPerTenant at once and all
// tenants' at most MaxConcurrent (issue 41: one tenant's 16 concurrent searches slowed another
// tenant's writes 300-fold). A search past its tenant's slots waits, at most SlotWait, and then
// fails with RESOURCE_BUSY naming whose searches held them; another tenant's search runs
// meanwhile unless all slots are taken; a caller that leaves while waiting gets its context's
// error.
func TestSearchSlots(t *testing.T) {
	store := memstore.New(memstore.Options{})
	svc, _ := fileio.NewService(store, fileio.Options{})
	idx := memindex.New()
	heavyCtx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-heavy", "heavy"))
	lightCtx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-light", "light"))
	for _, ctx := range []context.Context{heavyCtx, lightCtx} {
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: "/doc.md", Content: "Retries use exponential backoff."}); err != nil {
			t.Fatal(err)
		}
	}
	heavy, _ := agentfiles.AuthFromContext(heavyCtx)
	emb := &heldEmbedder{Embedder: search.NewHashingEmbedder(0), tenant: heavy.TenantID(), entered: make(chan struct{}, 4), release: make(chan struct{})}
	query := search.Query{Project: "p", Query: "backoff"}
	newSearcher := func(total int) *search.Searcher {
		s, err := search.NewSearcher(store, idx, search.SearcherOptions{Embedder: emb, MaxConcurrentPerTenant: 1, MaxConcurrent: total, SlotWait: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name      string
		total     int
		lightBusy string // "": the light tenant's search runs beside the heavy one's
	}{
		{"a slot per tenant", 2, ""},
		{"one slot for all", 1, "the searches of all callers held the server's 1 search slots"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSearcher(tc.total)
			first := make(chan error, 1)
			go func() {
				_, err := s.Search(heavyCtx, query)
				first <- err
			}()
			<-emb.entered // the first search holds the heavy tenant's slot
			began := time.Now()
			_, err := s.Search(heavyCtx, query)
			if agentfiles.ErrorCode(err) != agentfiles.CodeResourceBusy || !strings.Contains(err.Error(), "this API key's other searches held its 1 search slots") {
				t.Errorf("a second search of the tenant: %v; want RESOURCE_BUSY naming its slots", err)
			}
			if waited := time.Since(began); waited < 100*time.Millisecond {
				t.Errorf("the second search gave up after %v, before SlotWait", waited)
			}
			res, err := s.Search(lightCtx, query)
			switch {
			case tc.lightBusy == "" && (err != nil || len(res.Hits) != 1):
				t.Errorf("the other tenant's search while the first one runs: %+v, %v; want its file", res, err)
			case tc.lightBusy != "" && (agentfiles.ErrorCode(err) != agentfiles.CodeResourceBusy || !strings.Contains(err.Error(), tc.lightBusy)):
				t.Errorf("the other tenant's search with every slot taken: %v; want RESOURCE_BUSY saying %q", err, tc.lightBusy)
			}
			left, cancel := context.WithCancel(heavyCtx)
			time.AfterFunc(20*time.Millisecond, cancel)
			if _, err := s.Search(left, query); !errors.Is(err, context.Canceled) {
				t.Errorf("a search whose caller left while it waited: %v; want context.Canceled", err)
			}
			emb.release <- struct{}{}
			if err := <-first; err != nil {
				t.Errorf("the first search: %v", err)
			}
			if _, err := s.Search(lightCtx, query); err != nil {
				t.Errorf("a search after the slots were freed: %v", err)
			}
		})
	}
}
