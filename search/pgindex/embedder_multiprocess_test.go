package pgindex_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

// embReply is one output line of internal/embedderworker (its Reply).
type embReply struct {
	Ready bool `json:"ready"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Recorded *pgindex.EmbedderIdentity `json:"recorded"`
	Reembed  *pgindex.ReembedStats     `json:"reembed"`
	Indexer  *search.IndexerStats      `json:"indexer"`
	Paths    []string                  `json:"paths"`
}

// embWorker is one running embedderworker process: a server process with its own embedder,
// driven one command at a time over stdin.
type embWorker struct{ *proc }

// startEmbWorker starts the worker and returns it with its first line (ready, or Open's error).
func startEmbWorker(t *testing.T, bin, name string, args ...string) (*embWorker, embReply) {
	t.Helper()
	w := &embWorker{startProc(t, bin, name, args...)}
	return w, w.next(t)
}

// next reads the worker's next reply (bounded by a minute).
func (w *embWorker) next(t *testing.T) embReply {
	t.Helper()
	select {
	case line, ok := <-w.lines:
		if !ok {
			t.Fatalf("worker %s exited; stderr:\n%s", w.name, w.stderr)
		}
		var r embReply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("worker %s: reply %q: %v", w.name, line, err)
		}
		return r
	case <-time.After(time.Minute):
		t.Fatalf("worker %s: no reply within a minute; stderr:\n%s", w.name, w.stderr)
	}
	panic("unreachable")
}

// do sends one command and returns its reply, failing t if the command failed.
func (w *embWorker) do(t *testing.T, command string) embReply {
	t.Helper()
	if _, err := fmt.Fprintln(w.stdin, command); err != nil {
		t.Fatalf("worker %s: %v; stderr:\n%s", w.name, err, w.stderr)
	}
	r := w.next(t)
	if r.Error != nil {
		t.Fatalf("worker %s: %s: %s: %s", w.name, command, r.Error.Code, r.Error.Message)
	}
	return r
}

// exit closes stdin and returns the exit status (bounded by a minute).
func (w *embWorker) exit(t *testing.T) error {
	t.Helper()
	w.stdin.Close()
	for range w.lines {
	}
	select {
	case err := <-w.done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("worker %s did not exit within a minute", w.name)
	}
	return nil
}

// expectReady fails t unless reply says the worker is ready.
func expectReady(t *testing.T, w *embWorker, r embReply) {
	t.Helper()
	if !r.Ready || r.Error != nil {
		t.Fatalf("worker %s: %+v, want ready; stderr:\n%s", w.name, r, w.stderr)
	}
}

// expectRefused fails t unless the worker's Open was refused with INVALID_CONFIG naming both
// identities and the way out, and the process exited with status 2.
func expectRefused(t *testing.T, w *embWorker, r embReply, recorded, configured pgindex.EmbedderIdentity) {
	t.Helper()
	if r.Error == nil || r.Error.Code != agentfiles.CodeInvalidConfig.String() {
		t.Fatalf("worker %s: %+v, want INVALID_CONFIG; stderr:\n%s", w.name, r, w.stderr)
	}
	for _, want := range []string{recorded.String(), configured.String(), "configure the recorded embedder", "Reembed"} {
		if !strings.Contains(r.Error.Message, want) {
			t.Errorf("worker %s: refusal %q does not say %q", w.name, r.Error.Message, want)
		}
	}
	var exit *exec.ExitError
	if err := w.exit(t); !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Errorf("worker %s exited with %v, want status 2", w.name, err)
	}
}

// storedIdentities lists the (model, dims) pairs of the vectors stored in the database.
func storedIdentities(t *testing.T, ix *pgindex.Index) []pgindex.EmbedderIdentity {
	t.Helper()
	rows, err := ix.Pool().Query(context.Background(), "SELECT DISTINCT model, dims FROM mcp_search_vectors ORDER BY 1, 2")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []pgindex.EmbedderIdentity
	for rows.Next() {
		var id pgindex.EmbedderIdentity
		if err := rows.Scan(&id.Model, &id.Dimensions); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

// TestEmbedderMismatchTwoProcesses: server processes with their own embedders share one
// database. Process A (hashing, 64 dimensions) records its embedder and indexes; process B,
// configured with another embedder (32 dimensions, or 64 under another model name), is refused
// at Open with INVALID_CONFIG naming both; a process that does not declare its embedder opens but
// cannot store its vectors; a lexical-only process works. An explicit Index.Reembed in a third
// process then switches the database to B's embedder: B opens and finds every file
// semantically, and A, still running, finds nothing of its embedder and can store nothing.
func TestEmbedderMismatchTwoProcesses(t *testing.T) {
	bin := cmdtest.Build(t, "github.com/agentfiles/agentfiles/search/pgindex/internal/embedderworker")
	url := pgtest.New(t)
	_, svc := openStoreAndService(t, url, nil)
	check := pgtest.Open(t, url, pgindex.Open, pgindex.Options{}) // this test's own view of the tables
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext(procKey, "test"))
	const project = "embedders"
	write := func(path, content string) {
		t.Helper()
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: project, Path: path, Content: content, Mode: fileio.ModeTruncate}); err != nil {
			t.Fatal(err)
		}
	}
	write("/retry.md", "Retries use exponential backoff with jitter between attempts.")
	write("/auth.md", "Bearer tokens are hashed with SHA-256 before storage.")
	write("/queue.md", "The scheduler leases jobs from the outbox queue.")
	all := []string{"/auth.md", "/queue.md", "/retry.md"}
	common := []string{"-url", url, "-key", procKey, "-project", project}
	args := func(extra ...string) []string { return append(slices.Clone(common), extra...) }
	x := pgindex.IdentityOf(search.NewHashingEmbedder(64))
	y := pgindex.IdentityOf(search.NewHashingEmbedder(32))
	sorted := func(p []string) []string { return slices.Sorted(slices.Values(p)) }

	// A records its embedder and indexes the files with it.
	a, r := startEmbWorker(t, bin, "A", args("-dims", "64")...)
	expectReady(t, a, r)
	if st := a.do(t, "index").Indexer; st.Indexed != 3 || st.Failed != 0 {
		t.Fatalf("A indexed %+v, want 3 files", st)
	}
	if got := *a.do(t, "recorded").Recorded; got != x {
		t.Fatalf("recorded %v, want %v", got, x)
	}
	if got := sorted(a.do(t, "semantic retry backoff").Paths); !slices.Equal(got, all) {
		t.Fatalf("A's semantic candidates %v, want %v", got, all)
	}

	// B, configured with another embedder, is refused at Open: another size, or another model.
	b, r := startEmbWorker(t, bin, "B", args("-dims", "32")...)
	expectRefused(t, b, r, x, y)
	other := pgindex.EmbedderIdentity{Model: "other-model", Dimensions: 64}
	b, r = startEmbWorker(t, bin, "B-same-size", args("-dims", "64", "-model", other.Model)...)
	expectRefused(t, b, r, x, other)

	// A process that does not declare its embedder opens, but the database refuses its vectors:
	// its indexer fails the job instead of storing vectors A could never match.
	u, r := startEmbWorker(t, bin, "undeclared", args("-dims", "32", "-declare=false")...)
	expectReady(t, u, r)
	write("/new.md", "A new note about retry budgets.")
	if st := u.do(t, "index").Indexer; st.Failed != 1 || st.Indexed != 0 {
		t.Errorf("undeclared process: %+v, want its one job failed", st)
	}
	if got := storedIdentities(t, check); !slices.Equal(got, []pgindex.EmbedderIdentity{x}) {
		t.Errorf("stored vectors of %v, want only %v", got, x)
	}

	// A lexical-only process works against the database whatever its embedder.
	l, r := startEmbWorker(t, bin, "lexical-only", args("-dims", "0")...)
	expectReady(t, l, r)
	if got := l.do(t, "lexical backoff").Paths; !slices.Equal(got, []string{"/retry.md"}) {
		t.Errorf("lexical-only process found %v, want [/retry.md]", got)
	}

	// The explicit switch: another process re-embeds the database with B's embedder.
	re, r := startEmbWorker(t, bin, "reembed", args("-dims", "32", "-reembed")...)
	expectReady(t, re, r)
	want := pgindex.ReembedStats{From: x, To: y, Switched: true, DroppedVectors: 3, MarkedFiles: 3, Files: 3, Chunks: 3}
	if r.Reembed == nil || *r.Reembed != want {
		t.Fatalf("Reembed = %+v, want %+v", r.Reembed, want)
	}
	if got := storedIdentities(t, check); !slices.Equal(got, []pgindex.EmbedderIdentity{y}) {
		t.Errorf("after Reembed, stored vectors of %v, want only %v", got, y)
	}

	// B now opens, finds every file semantically, and indexes new files.
	b, r = startEmbWorker(t, bin, "B", args("-dims", "32")...)
	expectReady(t, b, r)
	if got := sorted(b.do(t, "semantic retry backoff").Paths); !slices.Equal(got, all) {
		t.Errorf("B's semantic candidates %v, want %v", got, all)
	}
	// A, still running with the old embedder, finds no vectors of it and cannot store any.
	if got := a.do(t, "semantic retry backoff").Paths; len(got) != 0 {
		t.Errorf("A still finds %v with the old embedder", got)
	}
	write("/later.md", "Written after the switch.")
	if st := a.do(t, "index").Indexer; st.Failed != 1 || st.Indexed != 3 {
		t.Errorf("A after the switch: %+v, want its new job failed", st)
	}
	write("/later.md", "Written after the switch, and written again for B.")
	if st := b.do(t, "index").Indexer; st.Indexed != 1 || st.Failed != 0 {
		t.Errorf("B indexed %+v, want 1 file", st)
	}
	if got := b.do(t, "semantic written after the switch").Paths; !slices.Contains(got, "/later.md") {
		t.Errorf("B's semantic candidates %v lack /later.md", got)
	}
	if got := storedIdentities(t, check); !slices.Equal(got, []pgindex.EmbedderIdentity{y}) {
		t.Errorf("stored vectors of %v, want only %v", got, y)
	}
	// A restarted with its old configuration is refused now.
	a2, r := startEmbWorker(t, bin, "A-restarted", args("-dims", "64")...)
	expectRefused(t, a2, r, y, x)

	for _, w := range []*embWorker{a, u, l, re, b} {
		if err := w.exit(t); err != nil {
			t.Errorf("worker %s: %v; stderr:\n%s", w.name, err, w.stderr)
		}
	}
}
