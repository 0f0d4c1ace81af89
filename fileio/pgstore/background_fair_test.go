package pgstore_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
)

// turnRecorder is a slog.Handler that keeps the "held" durations of the grep indexer's turns
// ("pgstore: grep index turn" records at Debug).
type turnRecorder struct {
	mu   sync.Mutex
	held []time.Duration
}

func (r *turnRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *turnRecorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *turnRecorder) WithGroup(string) slog.Handler            { return r }
func (r *turnRecorder) Handle(_ context.Context, rec slog.Record) error {
	if rec.Message != "pgstore: grep index turn" {
		return nil
	}
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "held" {
			r.mu.Lock()
			r.held = append(r.held, a.Value.Duration())
			r.mu.Unlock()
		}
		return true
	})
	return nil
}

// quantiles formats the p50, p95 and maximum of d (sorted in place).
func quantiles(d []time.Duration) string {
	if len(d) == 0 {
		return "none"
	}
	slices.Sort(d)
	q := func(f float64) time.Duration {
		return d[min(int(f*float64(len(d))), len(d)-1)].Round(100 * time.Microsecond)
	}
	return fmt.Sprintf("p50 %v, p95 %v, max %v (%d)", q(0.5), q(0.95), d[len(d)-1].Round(100*time.Microsecond), len(d))
}

// TestBackgroundWorkLeavesWritersAlone is the red team's case of issue 41: several tenants
// upload many files, empty and not (imports leave them to the background grep indexer and
// queue their search index jobs), and two instances index them — the grep indexer and a
// search worker's claims — while another tenant, alone in its project, writes one line 40
// times. Before, the indexer's statement spanned every tenant and held the rows it had taken
// for 5.5–8.6 s at 2.2 million files, and 7–10 of the 40 writes failed with RESOURCE_BUSY
// blaming "another write to this project". Now every write succeeds; the test reports their
// latency, quiet and during the backlog (not asserted: DESIGN.md §3.8's rule is measured by
// the server's fairness tests), and how long the indexer's turns held their rows. The default
// run has 6 tenants of 3,000 files (every other one 1,850 bytes of text, the rest empty);
// AGENTFILES_FULL=1 the red team's 11 of 200,000 (one in 20 with text).
func TestBackgroundWorkLeavesWritersAlone(t *testing.T) {
	tenants, files, textEvery := 6, 3_000, 2
	if os.Getenv("AGENTFILES_FULL") == "1" {
		tenants, files, textEvery = 11, 200_000, 20 // the red team's uploads were mostly empty files
	}
	rec := &turnRecorder{}
	opts := pgstore.Options{GrepIndexInterval: -1, PurgeInterval: -1, Logger: slog.New(rec)}
	s, url := newStore(t, opts)
	other := pgtest.Open(t, url, pgstore.Open, opts) // a second instance
	ctx := context.Background()

	text := strings.Repeat("a line of text for the trigram index\n", 50) // 1,850 bytes
	for k := range tenants {
		scope := driver.Scope{Tenant: fmt.Sprintf("%064d", k), Project: "upload"}
		for from := 0; from < files; from += 5_000 {
			batch := make([]driver.File, 0, 5_000)
			for i := from; i < min(files, from+5_000); i++ {
				content := []byte{}
				if i%textEvery == 1 {
					content = []byte(text)
				}
				batch = append(batch, driver.File{FileInfo: driver.FileInfo{Path: fmt.Sprintf("/d%02d/f%06d.txt", i%50, i)}, Content: content})
			}
			err := s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
				return tx.(driver.BulkWriter).PutMany(ctx, batch, driver.BulkOptions{DeferIndex: true})
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	backlog, err := s.GrepUnindexed(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// The other tenant writes with the Service's default lock timeout, as the server does.
	svc := storetest.NewService(t, s)
	actx := agentfiles.WithAuth(ctx, agentfiles.NewAuthContext("the-other-tenant", "t"))
	write := func(i int) (time.Duration, error) {
		began := time.Now()
		_, err := svc.Write(actx, fileio.WriteRequest{Project: "mine", Path: "/note.md", Content: fmt.Sprintf("line %d\n", i), Mode: fileio.ModeTruncate})
		return time.Since(began), err
	}
	var quiet []time.Duration
	for i := range 20 {
		d, err := write(i)
		if err != nil {
			t.Fatal(err)
		}
		quiet = append(quiet, d)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var indexed, claimed int64
	var bgErr []error
	for _, st := range []*pgstore.Store{s, other} {
		wg.Go(func() { // the grep indexer of each instance
			for {
				select {
				case <-stop:
					return
				default:
				}
				n, err := st.IndexGrepRound(ctx)
				mu.Lock()
				indexed += n
				if err != nil {
					bgErr = append(bgErr, err)
				}
				mu.Unlock()
				if err != nil || n == 0 {
					return
				}
			}
		})
		wg.Go(func() { // a search worker's claims, without the indexing work
			for {
				select {
				case <-stop:
					return
				default:
				}
				jobs, err := st.ClaimJobs(ctx, 16, time.Minute)
				for _, j := range jobs {
					if err == nil {
						err = st.CompleteJob(ctx, j)
					}
				}
				mu.Lock()
				claimed += int64(len(jobs))
				if err != nil {
					bgErr = append(bgErr, err)
				}
				mu.Unlock()
				if err != nil || len(jobs) == 0 {
					return
				}
			}
		})
	}
	var during []time.Duration
	var failed []string
	for i := range 40 {
		d, err := write(100 + i)
		during = append(during, d)
		if err != nil {
			failed = append(failed, err.Error())
		}
		time.Sleep(20 * time.Millisecond) // spread the writes over the indexing
	}
	mu.Lock()
	indexedDuring, claimedDuring := indexed, claimed
	mu.Unlock()
	close(stop)
	wg.Wait()

	rec.mu.Lock()
	held := slices.Clone(rec.held)
	rec.mu.Unlock()
	t.Logf("backlog: %d tenants × %d files (%d to index); during the 40 writes the indexers indexed %d files and the workers claimed %d jobs",
		tenants, files, backlog, indexedDuring, claimedDuring)
	t.Logf("the other tenant's one-line writes: quiet %s; during the backlog %s", quantiles(quiet), quantiles(during))
	t.Logf("rows held by the grep indexer's turns: %s", quantiles(held))
	if len(failed) > 0 {
		t.Errorf("%d of the other tenant's 40 writes failed during the backlog: %q", len(failed), failed)
	}
	if len(bgErr) > 0 {
		t.Errorf("background work failed: %v", bgErr)
	}
	if indexedDuring == 0 || claimedDuring == 0 {
		t.Errorf("the backlog was not worked on during the writes (indexed %d, claimed %d)", indexedDuring, claimedDuring)
	}
}
