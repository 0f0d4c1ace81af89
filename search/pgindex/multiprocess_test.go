package pgindex_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/testsize"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

// buildWorker builds the helper command that plays one indexing process.
func buildWorker(t *testing.T) string {
	return cmdtest.Build(t, "github.com/agentfiles/agentfiles/search/pgindex/internal/pgindexworker")
}

// proc is a helper process of these tests: commands go to its stdin, its stdout is read line by
// line, and it is killed when the test ends if it is still running.
type proc struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // stdout, line by line; closed at EOF
	stderr *strings.Builder
	done   chan error // the exit status, once stdout is drained
}

// startProc starts bin with args as the process called name in failure messages.
func startProc(t *testing.T, bin, name string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, cmd: exec.Command(bin, args...), lines: make(chan string, 16), stderr: &strings.Builder{}, done: make(chan error, 1)}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		io.Copy(io.Discard, out)
		close(p.lines)
		p.done <- p.cmd.Wait()
	}()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
		}
	})
	return p
}

// worker is one running pgindexworker process.
type worker struct{ *proc }

func startWorker(t *testing.T, bin, name string, args ...string) *worker {
	t.Helper()
	w := &worker{startProc(t, bin, name, args...)}
	w.expect(t, "ready")
	return w
}

// expect waits (up to a minute) for the next stdout line and checks it.
func (w *worker) expect(t *testing.T, want string) {
	t.Helper()
	select {
	case line, ok := <-w.lines:
		if !ok || line != want {
			t.Fatalf("worker %s: got %q (open %v), want %q; stderr:\n%s", w.name, line, ok, want, w.stderr)
		}
	case <-time.After(time.Minute):
		t.Fatalf("worker %s: no %q within a minute; stderr:\n%s", w.name, want, w.stderr)
	}
}

// stop sends SIGTERM, waits for the drain and returns the worker's final stats.
func (w *worker) stop(t *testing.T) search.IndexerStats {
	t.Helper()
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var stats search.IndexerStats
	select {
	case line, ok := <-w.lines:
		if !ok {
			t.Fatalf("worker %s exited without stats; stderr:\n%s", w.name, w.stderr)
		}
		if err := json.Unmarshal([]byte(line), &stats); err != nil {
			t.Fatalf("worker %s stats %q: %v", w.name, line, err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("worker %s did not stop within a minute", w.name)
	}
	if err := <-w.done; err != nil {
		t.Fatalf("worker %s: %v; stderr:\n%s", w.name, err, w.stderr)
	}
	return stats
}

// kill sends SIGKILL and waits for the process to die.
func (w *worker) kill(t *testing.T) {
	t.Helper()
	if err := w.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for range w.lines {
	}
	<-w.done
}

const procKey = "sk-pgindex-multiprocess-000000000"

var procScope = driver.Scope{Tenant: agentfiles.NewAuthContext(procKey, "").APIKeyHash, Project: "load"}

// openStoreAndService opens a pgstore Store on url and a Service over it that seals each
// caller's key with sealer (nil: none), both closed when the test ends.
func openStoreAndService(t *testing.T, url string, sealer fileio.CredentialSealer) (*pgstore.Store, *fileio.Service) {
	t.Helper()
	store, err := pgstore.Open(context.Background(), url, pgstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	cfg := fileio.DefaultConfig()
	cfg.RateLimitPerSecond = 0
	cfg.LockTimeout = time.Minute
	svc, err := fileio.NewService(store, fileio.Options{Config: cfg, CredentialSealer: sealer})
	if err != nil {
		t.Fatal(err)
	}
	return store, svc
}

var vocabulary = strings.Fields(`retry backoff jitter token bearer scheduler worker queue lease
	outbox postgres redis chunk offset index search query vector embedding rerank tenant project
	path prefix delete append truncate version commit freshness latency throughput percentile`)

func sentence(r *rand.Rand, words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(vocabulary[r.IntN(len(vocabulary))])
	}
	b.WriteString(".\n")
	return b.String()
}

// TestFreshnessTwoWorkerProcesses: two worker processes (two indexer goroutines each) on one
// database index a stream of 2,000 writes, appends and deletes (600 by default, all 2,000 with
// AGENTFILES_FULL=1) made through fileio.Service over pgstore by four concurrent writers. Afterwards no job is left, every active file is indexed
// exactly once at its latest version (chunks equal to a fresh split of the stored content, one
// row per chunk, postings and statistics consistent), and deleted files are gone from the
// index. Freshness (commit to searchable) percentiles are logged per worker:
//
//	go test -run TestFreshness -v ./search/pgindex/
func TestFreshnessTwoWorkerProcesses(t *testing.T) {
	bin := buildWorker(t)
	ix, url := newIndex(t, pgindex.Options{})
	store, svc := openStoreAndService(t, url, nil)
	workers := []*worker{
		// Both processes merge often (every 50 pending chunks), so merges of one project by two
		// processes meet each other and the writes.
		startWorker(t, bin, "A", "-url", url, "-workers", "2", "-lease", "20s", "-merge-pending", "50"),
		startWorker(t, bin, "B", "-url", url, "-workers", "2", "-lease", "20s", "-merge-pending", "50"),
	}
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext(procKey, "test"))
	const writers, paths = 4, 120
	perWriter := testsize.Count(t, 500, 150)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 42))
			tick := time.NewTicker(8 * time.Millisecond) // pace: ~500 writes/s at most overall
			defer tick.Stop()
			for i := range perWriter {
				<-tick.C
				p := fmt.Sprintf("/dir%d/file%03d.md", r.IntN(6), r.IntN(paths))
				var err error
				switch op := r.IntN(10); {
				case op < 6:
					body := strings.Repeat(sentence(r, 12), 1+r.IntN(24))
					_, err = svc.Write(ctx, fileio.WriteRequest{Project: procScope.Project, Path: p, Content: fmt.Sprintf("w%d op%d\n%s", w, i, body), Mode: fileio.ModeTruncate})
				case op < 9:
					_, err = svc.Write(ctx, fileio.WriteRequest{Project: procScope.Project, Path: p, Content: sentence(r, 8), Mode: fileio.ModeAppend})
				default:
					err = svc.Delete(ctx, fileio.DeleteRequest{Project: procScope.Project, Path: p, Recursive: false})
					if errors.Is(err, agentfiles.ErrNotFound) {
						err = nil
					}
				}
				if err != nil {
					t.Errorf("writer %d op %d on %s: %v", w, i, p, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d writes in %v", writers*perWriter, time.Since(start).Round(time.Millisecond))
	indextest.WaitIdle(t, store, 3*time.Minute)
	t.Logf("outbox drained %v after the first write", time.Since(start).Round(time.Millisecond))
	var indexed int64
	for _, w := range workers {
		st := w.stop(t)
		indexed += st.Indexed
		f := st.Freshness
		t.Logf("worker %s: indexed %d deleted %d skipped %d retried %d failed %d; freshness p50 %v p95 %v p99 %v max %v over %d samples (goal p95 <= 1s, SLO %v)",
			w.name, st.Indexed, st.Deleted, st.Skipped, st.Retried, st.Failed, f.P50, f.P95, f.P99, f.Max, f.Samples, f.SLOP95)
		if st.Failed != 0 || st.Degraded != 0 {
			t.Errorf("worker %s: %d failed, %d degraded jobs", w.name, st.Failed, st.Degraded)
		}
	}
	if indexed == 0 {
		t.Fatal("the workers indexed nothing")
	}
	checkIndexMatchesStore(t, ix, store, procScope)
}

// TestWorkerKilledMidJob: a worker process is SIGKILLed while it holds a job (its embedder is
// blocked inside the job); after the lease expires, another worker process indexes the file.
func TestWorkerKilledMidJob(t *testing.T) {
	bin := buildWorker(t)
	ix, url := newIndex(t, pgindex.Options{})
	store, svc := openStoreAndService(t, url, nil)
	victim := startWorker(t, bin, "victim", "-url", url, "-workers", "1", "-lease", "1s", "-poll", "20ms", "-hang-marker", "HANG-HERE")
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext(procKey, "test"))
	if _, err := svc.Write(ctx, fileio.WriteRequest{Project: procScope.Project, Path: "/crash.md", Content: "HANG-HERE: the first worker dies while embedding this file.", Mode: fileio.ModeTruncate}); err != nil {
		t.Fatal(err)
	}
	victim.expect(t, "hang") // the victim holds the job now
	victim.kill(t)
	if n, _ := store.PendingJobs(context.Background()); n != 1 {
		t.Fatalf("pending jobs after the crash = %d, want 1 (the leased job)", n)
	}
	if st, _ := ix.FileStates(context.Background(), procScope, ""); len(st) != 0 {
		t.Fatalf("the killed worker left index state: %+v", st)
	}
	rescuer := startWorker(t, bin, "rescuer", "-url", url, "-workers", "1", "-lease", "1s", "-poll", "20ms")
	indextest.WaitIdle(t, store, time.Minute)
	st := rescuer.stop(t)
	if st.Indexed != 1 {
		t.Errorf("rescuer indexed %d files, want 1", st.Indexed)
	}
	checkIndexMatchesStore(t, ix, store, procScope)
}

// checkIndexMatchesStore: the index holds exactly the store's active files at their versions,
// each with the chunks a fresh split gives (text, offsets, vectors), once; no other rows.
func checkIndexMatchesStore(t *testing.T, ix *pgindex.Index, store driver.Store, scope driver.Scope) {
	t.Helper()
	ctx := context.Background()
	files := storetest.Files(t, store, scope)
	states, err := ix.FileStates(ctx, scope, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != len(files) {
		t.Errorf("%d files indexed, %d active", len(states), len(files))
	}
	model := search.NewHashingEmbedder(64).Model()
	var wantChunks, wantTerms, wantPostings int64
	for _, f := range files {
		st, ok := states[f.Path]
		if !ok || !st.FileUpdatedAt.Equal(f.UpdatedAt) || st.EmbeddingModel != model {
			t.Errorf("%s: indexed %+v, active version %v", f.Path, st, f.UpdatedAt)
			continue
		}
		want := search.Chunker{}.Split(string(f.Content))
		got, err := ix.Chunks(ctx, scope, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d chunks indexed, a fresh split gives %d", f.Path, len(got), len(want))
			continue
		}
		for i := range want {
			terms, n := indexdriver.TermCounts(want[i].Text)
			want[i].Text = "" // the index keeps offsets and the hash, not the text
			if got[i].Chunk != want[i] || got[i].ChunkTerms != n || len(got[i].Terms) != len(terms) || len(got[i].Vector) != 64 {
				t.Errorf("%s chunk %d differs from a fresh split", f.Path, i)
			}
			wantChunks++
			wantTerms += int64(n)
			wantPostings += int64(len(terms))
		}
	}
	// Table-level invariants: statistics equal to the files' rows, one vector row per file with
	// chunks, every merged file pointing inside an existing segment, and the merge counters
	// equal to what the rows say.
	var fileChunks, fileTerms, vectorRows, filesWithChunks, outside, statChunks, statTerms, pending, sumPending, dead, sumDead int64
	q := `SELECT
  (SELECT coalesce(sum(f.chunk_count), 0) FROM mcp_search_files f WHERE f.project_id = pr.id),
  (SELECT coalesce(sum(f.total_terms), 0) FROM mcp_search_files f WHERE f.project_id = pr.id),
  (SELECT count(*) FROM mcp_search_vectors v WHERE v.project_id = pr.id),
  (SELECT count(*) FROM mcp_search_files f WHERE f.project_id = pr.id AND f.chunk_count > 0),
  (SELECT count(*) FROM mcp_search_files f LEFT JOIN mcp_search_segments s ON s.id = f.segment_id
   WHERE f.project_id = pr.id AND f.segment_id IS NOT NULL AND (s.id IS NULL OR f.first_chunk + f.chunk_count > s.chunk_count)),
  pr.chunk_count, pr.total_terms, pr.pending_chunks,
  (SELECT coalesce(sum(f.chunk_count), 0) FROM mcp_search_files f WHERE f.project_id = pr.id AND f.segment_id IS NULL),
  pr.dead_chunks,
  (SELECT coalesce(sum(s.chunk_count), 0) FROM mcp_search_segments s WHERE s.project_id = pr.id)
    - (SELECT coalesce(sum(f.chunk_count), 0) FROM mcp_search_files f WHERE f.project_id = pr.id AND f.segment_id IS NOT NULL)
FROM mcp_search_projects pr WHERE pr.apikey_hash = $1 AND pr.project = $2`
	if err := ix.Pool().QueryRow(ctx, q, scope.Tenant, scope.Project).Scan(&fileChunks, &fileTerms, &vectorRows, &filesWithChunks, &outside, &statChunks, &statTerms, &pending, &sumPending, &dead, &sumDead); err != nil {
		t.Fatal(err)
	}
	got := []int64{fileChunks, fileTerms, vectorRows, outside, statChunks, statTerms, pending, dead}
	want := []int64{wantChunks, wantTerms, filesWithChunks, 0, wantChunks, wantTerms, sumPending, sumDead}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("[file_chunks file_terms vector_rows outside_segments stat_chunks stat_terms pending dead] = %v, want %v", got, want)
	}
	var segments int64
	if err := ix.Pool().QueryRow(ctx, "SELECT count(*) FROM mcp_search_segments").Scan(&segments); err != nil {
		t.Fatal(err)
	}
	t.Logf("index matches the store: %d files, %d chunks, %d postings; %d segments, %d chunks pending, %d dead",
		len(files), wantChunks, wantPostings, segments, pending, dead)
}
