package pgindex_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// wantInvalidConfig fails t unless err is INVALID_CONFIG whose message contains every one of
// says.
func wantInvalidConfig(t *testing.T, what string, err error, says ...string) {
	t.Helper()
	var e *agentfiles.Error
	if !errors.As(err, &e) || e.Code != agentfiles.CodeInvalidConfig {
		t.Errorf("%s: %v, want INVALID_CONFIG", what, err)
		return
	}
	for _, s := range says {
		if !strings.Contains(e.Message, s) {
			t.Errorf("%s: message %q does not say %q", what, e.Message, s)
		}
	}
}

// recorded returns the embedder identity recorded for ix's database.
func recorded(t *testing.T, ix *pgindex.Index) pgindex.EmbedderIdentity {
	t.Helper()
	id, err := ix.RecordedEmbedder(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestEmbedderIdentityAtOpen: the first Open with an embedder records it; Open with the same
// one succeeds, with another model or another size is INVALID_CONFIG naming both and the way
// out, and without one (lexical-only) always succeeds. Incomplete identities are refused
// before the database is touched.
func TestEmbedderIdentityAtOpen(t *testing.T) {
	ctx := context.Background()
	lexical, url := newIndex(t, pgindex.Options{})
	if got := recorded(t, lexical); !got.IsZero() {
		t.Fatalf("a new database records %v", got)
	}
	x := pgindex.IdentityOf(search.NewHashingEmbedder(16))
	pgtest.Open(t, url, pgindex.Open, pgindex.Options{Embedder: x})
	if got := recorded(t, lexical); got != x {
		t.Fatalf("recorded %v, want %v", got, x)
	}
	pgtest.Open(t, url, pgindex.Open, pgindex.Options{Embedder: x}) // the same embedder again
	for _, other := range []pgindex.EmbedderIdentity{
		pgindex.IdentityOf(search.NewHashingEmbedder(8)), // another model and size
		{Model: x.Model, Dimensions: 32},                 // the same model name, another size
		{Model: "other", Dimensions: x.Dimensions},       // another model, the same size
	} {
		ix, err := pgindex.Open(ctx, url, pgindex.Options{Embedder: other})
		if err == nil {
			ix.Close()
		}
		wantInvalidConfig(t, "Open with "+other.String(), err, x.String(), other.String(), "configure the recorded embedder", "Reembed")
	}
	pgtest.Open(t, url, pgindex.Open, pgindex.Options{}) // lexical-only: never refused
	if got := recorded(t, lexical); got != x {
		t.Errorf("refused processes changed the record to %v", got)
	}
	for _, bad := range []pgindex.EmbedderIdentity{{Model: "m"}, {Dimensions: 3}, {Model: strings.Repeat("m", 129), Dimensions: 3}} {
		_, err := pgindex.New(ctx, lexical.Pool(), pgindex.Options{Embedder: bad})
		wantInvalidConfig(t, fmt.Sprintf("New with %+v", bad), err)
	}
	if id := pgindex.IdentityOf(nil); !id.IsZero() {
		t.Errorf("IdentityOf(nil) = %v", id)
	}
}

// TestForeignVectorsRefused: whoever stores vectors, the database keeps one embedder. The first
// vectors stored record their embedder even through an Index opened without one; vectors of
// another embedder are then INVALID_CONFIG from ReplaceFile (nothing is written), lexical-only
// files are always accepted, and Open with the other embedder is refused.
func TestForeignVectorsRefused(t *testing.T) {
	ctx := context.Background()
	ix, url := newIndex(t, pgindex.Options{})
	first, second := search.NewHashingEmbedder(8), search.NewHashingEmbedder(12)
	v := time.Now()
	if err := ix.ReplaceFile(ctx, testScope, indexedFile("/a.md", v, "alpha bravo", search.Chunker{}, first)); err != nil {
		t.Fatal(err)
	}
	if got, want := recorded(t, ix), pgindex.IdentityOf(first); got != want {
		t.Fatalf("recorded %v after the first vectors, want %v", got, want)
	}
	err := ix.ReplaceFile(ctx, testScope, indexedFile("/b.md", v, "charlie delta", search.Chunker{}, second))
	wantInvalidConfig(t, "ReplaceFile with another embedder's vectors", err, pgindex.IdentityOf(first).String(), pgindex.IdentityOf(second).String(), "Reembed")
	// The same file again with the other embedder: the old version stays.
	err = ix.ReplaceFile(ctx, testScope, indexedFile("/a.md", v.Add(time.Second), "alpha bravo echo", search.Chunker{}, second))
	wantInvalidConfig(t, "re-indexing with another embedder's vectors", err)
	if err := ix.ReplaceFile(ctx, testScope, indexedFile("/c.md", v, "lexical only", search.Chunker{}, nil)); err != nil {
		t.Errorf("a lexical-only file: %v", err)
	}
	states, err := ix.FileStates(ctx, testScope, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 2 || !states["/a.md"].FileUpdatedAt.Equal(v) || states["/a.md"].EmbeddingModel != first.Model() || states["/c.md"].EmbeddingModel != "" {
		t.Errorf("states after the refusals: %+v", states)
	}
	_, err = pgindex.Open(ctx, url, pgindex.Options{Embedder: pgindex.IdentityOf(second)})
	wantInvalidConfig(t, "Open with the second embedder", err)
}

// TestReembed: Reembed switches a database from one embedder to another: it drops the old
// vectors, embeds every indexed chunk with the new embedder (lexical-only files included) so
// that semantic answers equal a memindex built with the new embedder from the start, leaves
// lexical answers alone, and invalidates the caches of other instances. A process still on the
// old embedder can then store nothing; Open follows the new record. Reembed again resumes (does
// nothing more), and SwitchOnly switches without embedding.
func TestReembed(t *testing.T) {
	ctx := context.Background()
	oldEmb, newEmb := search.NewHashingEmbedder(16), search.NewHashingEmbedder(24)
	old, url := newIndex(t, pgindex.Options{Embedder: pgindex.IdentityOf(oldEmb)})
	cached := pgtest.Open(t, url, pgindex.Open, pgindex.Options{}) // another instance, with caches
	mem := memindex.New()
	chunker := search.NewChunker(search.ChunkerOptions{TargetBytes: 120, OverlapBytes: 20})
	base := time.Date(2026, 3, 4, 5, 6, 7, 891, time.UTC)
	const nfiles = 12
	files := &fileContents{}
	var chunks int64
	for i := range nfiles {
		content := strings.Repeat(fmt.Sprintf("file %d talks about %s and %s. ", i, words[i%len(words)], words[(3*i)%len(words)]), 6)
		embedWith := oldEmb
		if i == nfiles-1 {
			embedWith = nil // one lexical-only file: Reembed gives it vectors too
		}
		f := indexedFile(fmt.Sprintf("/d%d/f%02d.md", i%3, i), base.Add(time.Duration(i)), content, chunker, embedWith)
		files.put(f, content)
		if err := old.ReplaceFile(ctx, testScope, f); err != nil {
			t.Fatal(err)
		}
		if embedWith != nil {
			chunks += int64(len(f.Chunks))
		}
		if err := mem.ReplaceFile(ctx, testScope, indexedFile(f.Path, f.FileUpdatedAt, content, chunker, newEmb)); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{"file talks about alpha", "retry backoff", "tango"}
	semantic := func(ix indexdriver.Index, emb *search.HashingEmbedder, q string) []indexdriver.Candidate {
		t.Helper()
		v, _ := emb.Embed(ctx, []string{q})
		got, err := ix.Semantic(ctx, testScope, indexdriver.SemanticQuery{Vector: v[0], Model: emb.Model(), TopK: 10})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	lexical := func(ix indexdriver.Index) indexdriver.LexicalResult {
		t.Helper()
		res, err := ix.Lexical(ctx, testScope, indexdriver.LexicalQuery{Terms: indexdriver.QueryTerms("file talks alpha"), BM25: indexdriver.DefaultBM25(), TopK: 10})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	lexBefore := lexical(cached)
	for _, q := range queries { // warm the other instance's caches
		if len(semantic(cached, oldEmb, q)) == 0 || len(semantic(cached, newEmb, q)) != 0 {
			t.Fatalf("before Reembed, %q: wrong candidates", q)
		}
	}

	if _, err := cached.Reembed(ctx, newEmb, pgindex.ReembedOptions{}); !errors.Is(err, agentfiles.ErrInvalidConfig) {
		t.Fatalf("Reembed without Content: %v, want INVALID_CONFIG before anything is switched", err)
	}
	st, err := cached.Reembed(ctx, newEmb, pgindex.ReembedOptions{BatchFiles: 5, Content: files.content})
	if err != nil {
		t.Fatal(err)
	}
	want := pgindex.ReembedStats{From: pgindex.IdentityOf(oldEmb), To: pgindex.IdentityOf(newEmb), Switched: true,
		DroppedVectors: chunks, MarkedFiles: nfiles - 1, Files: nfiles, Chunks: st.Chunks}
	if st != want || st.Chunks <= chunks {
		t.Fatalf("Reembed = %+v, want %+v with every chunk embedded", st, want)
	}
	for _, q := range queries {
		wantCands := semantic(mem, newEmb, q)
		for name, ix := range map[string]*pgindex.Index{"old": old, "cached": cached} {
			if diff := cmp.Diff(wantCands, semantic(ix, newEmb, q), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s instance, %q after Reembed (-memindex +pgindex):\n%s", name, q, diff)
			}
			if got := semantic(ix, oldEmb, q); len(got) != 0 {
				t.Errorf("%s instance, %q: %d candidates of the old embedder after Reembed", name, q, len(got))
			}
		}
	}
	if diff := cmp.Diff(lexBefore, lexical(cached), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Reembed changed lexical answers:\n%s", diff)
	}
	states, err := cached.FileStates(ctx, testScope, "")
	if err != nil {
		t.Fatal(err)
	}
	for p, s := range states {
		if s.EmbeddingModel != newEmb.Model() {
			t.Errorf("%s: state %+v after Reembed", p, s)
		}
	}
	err = old.ReplaceFile(ctx, testScope, indexedFile("/late.md", base, "written by the old process", chunker, oldEmb))
	wantInvalidConfig(t, "the old process storing vectors after Reembed", err, pgindex.IdentityOf(newEmb).String())
	_, err = pgindex.Open(ctx, url, pgindex.Options{Embedder: pgindex.IdentityOf(oldEmb)})
	wantInvalidConfig(t, "Open with the old embedder after Reembed", err)
	pgtest.Open(t, url, pgindex.Open, pgindex.Options{Embedder: pgindex.IdentityOf(newEmb)})

	// Again: nothing left to do.
	if st, err := cached.Reembed(ctx, newEmb, pgindex.ReembedOptions{Content: files.content}); err != nil || st != (pgindex.ReembedStats{From: want.To, To: want.To}) {
		t.Errorf("Reembed again = %+v, %v; want nothing done", st, err)
	}
	// SwitchOnly: back to the old embedder, files left lexical-only until embedded.
	st, err = cached.Reembed(ctx, oldEmb, pgindex.ReembedOptions{SwitchOnly: true})
	if err != nil || !st.Switched || st.Files != 0 || st.Pending != nfiles || st.MarkedFiles != nfiles {
		t.Errorf("Reembed SwitchOnly = %+v, %v; want switched, %d files pending", st, err, nfiles)
	}
	if got := semantic(cached, oldEmb, queries[0]); len(got) != 0 {
		t.Errorf("%d candidates after SwitchOnly", len(got))
	}
	st, err = cached.Reembed(ctx, oldEmb, pgindex.ReembedOptions{Content: files.content})
	if err != nil || st.Switched || st.Files != nfiles || st.Pending != 0 {
		t.Errorf("Reembed after SwitchOnly = %+v, %v; want %d files embedded", st, err, nfiles)
	}
	if got := semantic(old, oldEmb, queries[0]); len(got) == 0 {
		t.Error("no candidates of the old embedder after switching back")
	}
	if _, err := cached.Reembed(ctx, nil, pgindex.ReembedOptions{Content: files.content}); !errors.Is(err, agentfiles.ErrInvalidConfig) {
		t.Errorf("Reembed(nil) = %v, want INVALID_CONFIG", err)
	}
}

// failingEmbedder fails every call after the first n texts.
type failingEmbedder struct {
	*search.HashingEmbedder
	left int
}

func (f *failingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f.left < len(texts) {
		return nil, agentfiles.NewError(search.CodeSearchBackendError, "provider down", "")
	}
	f.left -= len(texts)
	return f.HashingEmbedder.Embed(ctx, texts)
}

// TestReembedResumes: an embedder failure stops Reembed after the switch with the error; the
// files embedded so far keep their vectors, and Reembed again embeds the rest.
func TestReembedResumes(t *testing.T) {
	ctx := context.Background()
	oldEmb := search.NewHashingEmbedder(8)
	ix, _ := newIndex(t, pgindex.Options{Embedder: pgindex.IdentityOf(oldEmb)})
	files := &fileContents{}
	for i := range 6 {
		f := indexedFile(fmt.Sprintf("/f%d.md", i), time.Now(), "one chunk of text", search.Chunker{}, oldEmb)
		files.put(f, "one chunk of text")
		if err := ix.ReplaceFile(ctx, testScope, f); err != nil {
			t.Fatal(err)
		}
	}
	flaky := &failingEmbedder{HashingEmbedder: search.NewHashingEmbedder(10), left: 2}
	st, err := ix.Reembed(ctx, flaky, pgindex.ReembedOptions{BatchFiles: 4, Content: files.content})
	if !errors.Is(err, search.ErrSearchBackendError) || !st.Switched || st.Files != 2 {
		t.Fatalf("Reembed with a failing embedder = %+v, %v; want switched, 2 files, the embedder's error", st, err)
	}
	flaky.left = 100
	st, err = ix.Reembed(ctx, flaky, pgindex.ReembedOptions{Content: files.content})
	if err != nil || st.Switched || st.Files != 4 || st.Pending != 0 {
		t.Fatalf("Reembed resumed = %+v, %v; want the 4 files left", st, err)
	}
}

// TestReembedConcurrentWriters: Reembed runs while writers re-index files with the old embedder
// (through an Index that declared it) and with the new one (through an Index that declared
// none). No statement deadlocks or fails otherwise; old-embedder writes that commit before the
// switch are re-embedded, later ones are INVALID_CONFIG, new-embedder writes fail before the
// switch and succeed after it; in the end every file has vectors of the new embedder only.
func TestReembedConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	oldEmb, newEmb := search.NewHashingEmbedder(8), search.NewHashingEmbedder(12)
	old, url := newIndex(t, pgindex.Options{Embedder: pgindex.IdentityOf(oldEmb)})
	undeclared := pgtest.Open(t, url, pgindex.Open, pgindex.Options{})
	const files = 30
	path := func(i int) string { return fmt.Sprintf("/f%02d.md", i) }
	var version atomic.Int64
	version.Store(time.Now().UnixNano())
	contents := &fileContents{}
	put := func(ix *pgindex.Index, i int, emb *search.HashingEmbedder) error {
		v := time.Unix(0, version.Add(1))
		content := fmt.Sprintf("version %d of file %d\n\nsecond paragraph", v.UnixNano(), i)
		f := indexedFile(path(i), v, content, search.Chunker{}, emb)
		contents.put(f, content)
		return ix.ReplaceFile(ctx, testScope, f)
	}
	for i := range files {
		if err := put(old, i, oldEmb); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var tries, refused [4]atomic.Int64
	for w, writer := range []struct {
		ix  *pgindex.Index
		emb *search.HashingEmbedder
	}{{old, oldEmb}, {old, oldEmb}, {undeclared, newEmb}, {undeclared, newEmb}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				err := put(writer.ix, (w*7+n)%files, writer.emb)
				tries[w].Add(1)
				if errors.Is(err, agentfiles.ErrInvalidConfig) {
					refused[w].Add(1)
				} else if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		}()
	}
	poll.Eventually(t, time.Minute, "every writer tried 5 times", func() bool {
		for i := range tries {
			if tries[i].Load() < 5 {
				return false
			}
		}
		return true
	})
	st, err := undeclared.Reembed(ctx, newEmb, pgindex.ReembedOptions{BatchFiles: 7, Content: contents.content})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Reembed: %+v", st)
	for w := range tries {
		t.Logf("writer %d: %d writes, %d refused", w, tries[w].Load(), refused[w].Load())
	}
	if st.Pending != 0 || !st.Switched {
		t.Errorf("Reembed = %+v, want switched with nothing pending", st)
	}
	if got := storedIdentities(t, undeclared); len(got) != 1 || got[0] != pgindex.IdentityOf(newEmb) {
		t.Errorf("stored vectors of %v, want only %v", got, pgindex.IdentityOf(newEmb))
	}
	states, err := undeclared.FileStates(ctx, testScope, "")
	if err != nil {
		t.Fatal(err)
	}
	for p, s := range states {
		if s.EmbeddingModel != newEmb.Model() {
			t.Errorf("%s: %+v, want vectors of %s", p, s, newEmb.Model())
		}
	}
	if err := put(old, 0, oldEmb); !errors.Is(err, agentfiles.ErrInvalidConfig) {
		t.Errorf("old embedder after the switch: %v, want INVALID_CONFIG", err)
	}
}

// fileContents stands in for the file store that Reembed reads chunk text from: the content of
// each indexed file version. Safe for concurrent use.
type fileContents struct {
	mu sync.Mutex
	m  map[string][]byte // path NUL version
}

func contentKey(path string, version time.Time) string {
	return path + "\x00" + strconv.FormatInt(version.UnixNano(), 10)
}

func (c *fileContents) put(f indexdriver.IndexedFile, content string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	c.m[contentKey(f.Path, f.FileUpdatedAt)] = []byte(content)
}

// content implements pgindex.ReembedOptions.Content.
func (c *fileContents) content(_ context.Context, _ driver.Scope, path string, version time.Time) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[contentKey(path, version)]
	return b, ok, nil
}
