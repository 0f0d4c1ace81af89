// Command pgindexworker is a test helper: one indexing process of a multi-process test of
// package pgindex. It opens a fileio/pgstore Store and a pgindex Index on -url and runs a
// search.Indexer (the production worker) over the store's outbox until SIGTERM or SIGINT, then
// drains, prints one JSON line of search.IndexerStats and exits 0.
//
// It prints "ready" once its workers run. With -hang-marker, the embedder blocks forever on any
// chunk containing the marker (after printing "hang"), so a test can SIGKILL the process in the
// middle of a job and check that another worker picks the job up when the lease expires. It is
// not part of the library.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

func main() {
	url := flag.String("url", "", "database URL")
	workers := flag.Int("workers", 2, "indexer goroutines in this process")
	batch := flag.Int("batch", 8, "jobs claimed at once per goroutine")
	lease := flag.Duration("lease", 30*time.Second, "job lease")
	poll := flag.Duration("poll", 200*time.Millisecond, "longest wait between outbox polls")
	marker := flag.String("hang-marker", "", "block forever embedding a chunk that contains this text")
	mergeAt := flag.Int("merge-pending", 0, "pgindex Options.MergePendingChunks (0: the default)")
	flag.Parse()
	if err := run(*url, *workers, *batch, *lease, *poll, *marker, *mergeAt); err != nil {
		fmt.Fprintln(os.Stderr, "pgindexworker:", err)
		os.Exit(1)
	}
}

func run(url string, workers, batch int, lease, poll time.Duration, marker string, mergeAt int) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	store, err := pgstore.Open(ctx, url, pgstore.Options{PollInterval: poll})
	if err != nil {
		return err
	}
	defer store.Close()
	idx, err := pgindex.Open(ctx, url, pgindex.Options{MergePendingChunks: mergeAt})
	if err != nil {
		return err
	}
	defer idx.Close()
	var emb search.Embedder = search.NewHashingEmbedder(64)
	if marker != "" {
		emb = &hangingEmbedder{Embedder: emb, marker: marker}
	}
	ixr, err := search.NewIndexer(store, idx, search.IndexerOptions{
		Embedder: emb, Workers: workers, BatchSize: batch, RetryBackoff: 50 * time.Millisecond, Lease: lease, PollInterval: poll,
	})
	if err != nil {
		return err
	}
	ixr.Start(context.Background())
	fmt.Println("ready")
	<-ctx.Done()
	stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ixr.Stop(stopCtx); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(ixr.Stats())
}

// hangingEmbedder blocks until its context ends when a text contains the marker.
type hangingEmbedder struct {
	search.Embedder
	marker string
	once   sync.Once
}

func (h *hangingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	for _, t := range texts {
		if strings.Contains(t, h.marker) {
			h.once.Do(func() { fmt.Println("hang") })
			<-ctx.Done()
			return nil, ctx.Err()
		}
	}
	return h.Embedder.Embed(ctx, texts)
}
