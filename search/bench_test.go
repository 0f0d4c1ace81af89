package search_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/memindex"
)

var benchLarge = flag.Bool("search.large", false, "also run the 100k-chunk benchmarks (slow to build)")

// synthText returns deterministic English-like text: words drawn from a Zipf distribution over
// a 5000-word vocabulary of pronounceable stems, so postings lengths look like real text.
type synth struct {
	vocab []string
	zipf  *rand.Zipf
	r     *rand.Rand
}

func newSynth(seed uint64) *synth {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "ta", "shi", "vo", "ze", "pa", "qui", "dor", "len", "gar", "bis"}
	vocab := make([]string, 5000)
	for i := range vocab {
		var b strings.Builder
		for j := 0; j < 2+i%3; j++ {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		vocab[i] = fmt.Sprintf("%s%d", b.String(), i%7)
	}
	return &synth{vocab: vocab, r: r, zipf: rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))}
}

func (s *synth) text(words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			if i%12 == 0 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(s.vocab[s.zipf.Uint64()])
	}
	return b.String()
}

// directIndex is a memstore and a memindex that benchmarks fill directly (no outbox, no
// Indexer), with the hashing embedder and chunks of about 400 bytes.
type directIndex struct {
	store   *memstore.Store
	idx     *memindex.Index
	emb     search.Embedder
	chunker search.Chunker
}

func newDirectIndex() *directIndex {
	return &directIndex{
		store:   memstore.New(memstore.Options{}),
		idx:     memindex.New(),
		emb:     search.NewHashingEmbedder(search.DefaultHashingDimensions),
		chunker: search.NewChunker(search.ChunkerOptions{TargetBytes: 400, OverlapBytes: -1}),
	}
}

// searcher returns a Searcher over d with d's embedder and chunker.
func (d *directIndex) searcher(b *testing.B) *search.Searcher {
	s, err := search.NewSearcher(d.store, d.idx, search.SearcherOptions{Embedder: d.emb, Chunker: d.chunker})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// corpusFixture is a project of files indexed straight into a memindex (10 chunks per file).
type corpusFixture struct {
	searcher *search.Searcher
	queries  []string
	ctx      context.Context
}

func buildFixture(b *testing.B, chunks int) *corpusFixture {
	b.Helper()
	const chunksPerFile = 10
	s := newSynth(1)
	d := newDirectIndex()
	ac := agentfiles.NewAuthContext("bench-key", "")
	scope := driver.Scope{Tenant: ac.APIKeyHash, Project: "bench"}
	for f := 0; f*chunksPerFile < chunks; f++ {
		d.put(b, scope, fmt.Sprintf("/dir%03d/file%05d.txt", f%100, f), s.paragraphs(chunksPerFile, 45))
	}
	// Every file is indexed, so no index job is pending, as after an Indexer caught up. (Left
	// pending, the setup's 10,000 jobs made every query read and classify them: the Searcher
	// reads a project's pending jobs to scan files not indexed yet.)
	storetest.CompleteJobs(b, d.store)
	return &corpusFixture{searcher: d.searcher(b), queries: s.queries(200), ctx: agentfiles.WithAuth(context.Background(), ac)}
}

// indexedFile analyses and embeds content as the Indexer would for the file info.
func (d *directIndex) indexedFile(b *testing.B, info driver.FileInfo, content string) indexdriver.IndexedFile {
	chunks := d.chunker.Split(content)
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.Text
	}
	vecs, err := d.emb.Embed(context.Background(), texts)
	if err != nil {
		b.Fatal(err)
	}
	doc := indexdriver.IndexedFile{Path: info.Path, FileUpdatedAt: info.UpdatedAt, Tokenizer: indexdriver.TokenizerName, EmbeddingModel: d.emb.Model()}
	for i, c := range chunks {
		terms, n := indexdriver.TermCounts(c.Text)
		doc.Chunks = append(doc.Chunks, indexdriver.IndexedChunk{Chunk: c, Terms: terms, ChunkTerms: n, Vector: vecs[i]})
	}
	return doc
}

// BenchmarkIndexBuild measures chunking + analysis + hashing embedding + ReplaceFile, per file
// of 10 chunks, and reports chunks/s.
func BenchmarkIndexBuild(b *testing.B) {
	s := newSynth(2)
	d := newDirectIndex()
	scope := driver.Scope{Tenant: "t", Project: "p"}
	contents := make([]string, 64)
	for i := range contents {
		contents[i] = s.paragraphs(10, 45)
	}
	chunks := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		info := driver.FileInfo{Path: fmt.Sprintf("/f%d", i), UpdatedAt: time.Unix(int64(i), 0)}
		doc := d.indexedFile(b, info, contents[i%len(contents)])
		if err := d.idx.ReplaceFile(context.Background(), scope, doc); err != nil {
			b.Fatal(err)
		}
		chunks += len(doc.Chunks)
	}
	b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
}

func benchQuery(b *testing.B, chunks int) {
	if chunks > 10_000 && !*benchLarge {
		b.Skip("100k-chunk benchmark: run with -search.large")
	}
	fx := buildFixture(b, chunks)
	lat := make(indextest.Latencies, 0, 1024)
	runtime.GC() // building the fixture leaves a collection of its large heap running; don't time it
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if _, err := fx.searcher.Search(fx.ctx, search.Query{Project: "bench", Query: fx.queries[i%len(fx.queries)], Limit: 10}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	lat.Report(b)
}

// BenchmarkQueryHybrid is a full Searcher.Search (hashing embedder, BM25, fusion, active-file
// check, last_served_at) without a network reranker.
func BenchmarkQueryHybrid(b *testing.B) {
	b.Run("chunks=10k", func(b *testing.B) { benchQuery(b, 10_000) })
	b.Run("chunks=100k", func(b *testing.B) { benchQuery(b, 100_000) })
}

// BenchmarkFreshness measures commit-to-searchable latency with two indexer workers running:
// "burst" writes b.N files as fast as possible (the backlog dominates), "one-at-a-time" waits
// for each write to be indexed before the next (pure pipeline latency).
func BenchmarkFreshness(b *testing.B) {
	for _, burst := range []bool{true, false} {
		name := "one-at-a-time"
		if burst {
			name = "burst"
		}
		b.Run(name, func(b *testing.B) {
			e := indextest.NewEnv(b, memindex.New(), indextest.EnvOptions{})
			s := newSynth(3)
			ctx := indextest.Ctx("fresh-key")
			runCtx, cancel := context.WithCancel(context.Background())
			defer cancel()
			e.Indexer.Start(runCtx)
			for i := 0; b.Loop(); i++ {
				e.Write(ctx, "p", fmt.Sprintf("/f%d.txt", i), s.text(200))
				if !burst {
					indextest.WaitIdle(b, e.Store, time.Minute)
				}
			}
			indextest.WaitIdle(b, e.Store, time.Minute)
			_ = e.Indexer.Stop(context.Background())
			fr := e.Indexer.Stats().Freshness
			b.ReportMetric(float64(fr.P50.Microseconds())/1000, "fresh-p50-ms")
			b.ReportMetric(float64(fr.P95.Microseconds())/1000, "fresh-p95-ms")
			b.ReportMetric(float64(fr.P99.Microseconds())/1000, "fresh-p99-ms")
		})
	}
}

// BenchmarkTokenize and BenchmarkChunk measure the analysis hot paths on 4 KiB of text.
func BenchmarkTokenize(b *testing.B) {
	text := newSynth(4).text(600)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		indexdriver.TermCounts(text)
	}
}

func BenchmarkChunk(b *testing.B) {
	text := newSynth(5).text(6000)
	c := search.NewChunker(search.ChunkerOptions{})
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		c.Split(text)
	}
}

func BenchmarkHashingEmbed(b *testing.B) {
	text := newSynth(6).text(200)
	e := search.NewHashingEmbedder(search.DefaultHashingDimensions)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_, _ = e.Embed(context.Background(), []string{text})
	}
}

// paragraphs returns n paragraphs of words words each, separated by blank lines.
func (s *synth) paragraphs(n, words int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = s.text(words)
	}
	return strings.Join(parts, "\n\n")
}

// queries returns n queries of three words.
func (s *synth) queries(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s.text(3)
	}
	return out
}

// put stores content at path in scope and indexes it directly (no outbox, no Indexer).
func (d *directIndex) put(b *testing.B, scope driver.Scope, path, content string) {
	b.Helper()
	ctx := context.Background()
	var info driver.FileInfo
	err := d.store.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		var err error
		info, err = tx.Put(ctx, path, []byte(content), driver.PutOptions{})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := d.idx.ReplaceFile(ctx, scope, d.indexedFile(b, info, content)); err != nil {
		b.Fatal(err)
	}
}
