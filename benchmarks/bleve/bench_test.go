package blevebench

import (
	"flag"
	"fmt"
	"sync"
	"testing"
	"time"
)

var large = flag.Bool("bleve.large", false, "also run the 100,000-chunk sizes (slow: minutes to build)")

// Corpus shape for the speed benchmarks: chunks of 150 words (about the search package's
// default 1200-byte chunk), a 20,000-word Zipf vocabulary, 200 queries of 2-4 words.
const (
	wordsPerChunk = 150
	vocabWords    = 20000
	queryCount    = 200
)

func sizes() []int {
	if *large {
		return []int{10000, 100000}
	}
	return []int{10000}
}

type synthCorpus struct {
	docs    []Doc
	queries []string // drawn from the documents' vocabulary and distribution
}

var corpora sync.Map // size -> *synthCorpus

func corpus(n int) *synthCorpus {
	if c, ok := corpora.Load(n); ok {
		return c.(*synthCorpus)
	}
	s := NewSynth(1, vocabWords)
	c := &synthCorpus{docs: s.Docs(n, wordsPerChunk), queries: s.Queries(queryCount)}
	corpora.Store(n, c)
	return c
}

// speedSpecs are the engines timed: the library as shipped, bleve as a user would configure
// it, and bleve with our analyzer (which separates analysis cost from index cost).
func speedSpecs() []engineSpec {
	s := specs()
	return []engineSpec{s[0], s[3], s[2]}
}

var metricNames = []string{"agentfiles", "bleve-en", "bleve-ouranalyzer"}

// buildSliceDocs is how many chunks one engine indexes before the next engine takes its turn.
const buildSliceDocs = 5000

// BenchmarkBuild indexes the whole corpus into a fresh index of each engine per iteration
// (agentfiles: one ReplaceFile per chunk on one goroutine; bleve: batches of 1000, analysed by
// its own worker pool). The engines take turns every buildSliceDocs chunks, so load from other
// processes on the machine hits all of them alike. It reports each engine's wall-clock chunks/s
// and CPU seconds per build (all cores), and bleve's wall-clock build time over agentfiles'.
func BenchmarkBuild(b *testing.B) {
	for _, n := range sizes() {
		docs := corpus(n).docs
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			spent := make([]time.Duration, len(speedSpecs()))
			cpu := make([]time.Duration, len(speedSpecs()))
			iters := 0
			for b.Loop() {
				var engines []Engine
				for _, spec := range speedSpecs() {
					e, err := spec.new()
					if err != nil {
						b.Fatal(err)
					}
					engines = append(engines, e)
				}
				for start := 0; start < len(docs); start += buildSliceDocs {
					slice := docs[start:min(start+buildSliceDocs, len(docs))]
					for i, e := range engines {
						wall, cpuStart := time.Now(), processCPU()
						if err := e.Add(slice); err != nil {
							b.Fatal(err)
						}
						spent[i] += time.Since(wall)
						cpu[i] += processCPU() - cpuStart
					}
				}
				for _, e := range engines {
					if err := e.Close(); err != nil {
						b.Fatal(err)
					}
				}
				iters++
			}
			for i, name := range metricNames {
				b.ReportMetric(float64(n*iters)/spent[i].Seconds(), name+"-chunks/s")
				b.ReportMetric(cpu[i].Seconds()/float64(iters), name+"-cpu-s")
			}
			b.ReportMetric(spent[1].Seconds()/spent[0].Seconds(), "bleve-en/agentfiles-time")
			b.ReportMetric(spent[2].Seconds()/spent[0].Seconds(), "bleve-ouranalyzer/agentfiles-time")
		})
	}
}

type queryFixture struct {
	engines []Engine
	queries []string
}

var fixtures sync.Map // size -> *queryFixture

// fixture builds every speed engine over the corpus once per size (bleve in one batch, so it
// is queried as a single fully merged segment: its best case).
func fixture(b *testing.B, n int) *queryFixture {
	if f, ok := fixtures.Load(n); ok {
		return f.(*queryFixture)
	}
	c := corpus(n)
	docs := c.docs
	f := &queryFixture{queries: c.queries}
	for _, spec := range speedSpecs() {
		e, err := spec.new()
		if err != nil {
			b.Fatal(err)
		}
		if bl, ok := e.(*Bleve); ok {
			bl.opts.BatchDocs = len(docs)
		}
		if err := e.Add(docs); err != nil {
			b.Fatal(err)
		}
		f.engines = append(f.engines, e)
	}
	fixtures.Store(n, f)
	return f
}

// BenchmarkQuery runs one query (top 10) on every engine per iteration, interleaved so load on
// the machine hits all engines alike, and reports each engine's p50 and p95 latency and
// bleve's over agentfiles'.
func BenchmarkQuery(b *testing.B) {
	for _, n := range sizes() {
		f := fixture(b, n)
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			lat := make([][]time.Duration, len(f.engines))
			i := 0
			for b.Loop() {
				q := f.queries[i%len(f.queries)]
				i++
				for j, e := range f.engines {
					start := time.Now()
					if _, err := e.Search(q, 10); err != nil {
						b.Fatal(err)
					}
					lat[j] = append(lat[j], time.Since(start))
				}
			}
			p50 := make([]time.Duration, len(lat))
			p95 := make([]time.Duration, len(lat))
			for j, name := range metricNames {
				p50[j], p95[j] = Percentile(lat[j], 50), Percentile(lat[j], 95)
				b.ReportMetric(float64(p50[j].Nanoseconds())/1e3, name+"-p50-µs")
				b.ReportMetric(float64(p95[j].Nanoseconds())/1e3, name+"-p95-µs")
			}
			b.ReportMetric(p50[1].Seconds()/p50[0].Seconds(), "bleve-en/agentfiles-p50")
			b.ReportMetric(p95[1].Seconds()/p95[0].Seconds(), "bleve-en/agentfiles-p95")
			b.ReportMetric(p50[2].Seconds()/p50[0].Seconds(), "bleve-ouranalyzer/agentfiles-p50")
		})
	}
}

// BenchmarkAnalyze times analysis alone (text to term counts), the largest part of a build:
// indexdriver.TermCounts against bleve's "en" analyzer on the same chunks, one goroutine each, and
// reports MB/s of each and bleve's time over agentfiles'.
func BenchmarkAnalyze(b *testing.B) {
	docs := corpus(10000).docs[:1000]
	bytes := 0
	for _, d := range docs {
		bytes += len(d.Text)
	}
	analyzers := []Analyzer{AgentfilesAnalyzer, BleveEnglishAnalyzer}
	spent := make([]time.Duration, len(analyzers))
	iters := 0
	for b.Loop() {
		for i, a := range analyzers {
			start := time.Now()
			for _, d := range docs {
				a.counts(d.Text)
			}
			spent[i] += time.Since(start)
		}
		iters++
	}
	for i, name := range []string{"agentfiles", "bleve-en"} {
		b.ReportMetric(float64(bytes*iters)/1e6/spent[i].Seconds(), name+"-MB/s")
	}
	b.ReportMetric(spent[1].Seconds()/spent[0].Seconds(), "bleve-en/agentfiles-time")
}
