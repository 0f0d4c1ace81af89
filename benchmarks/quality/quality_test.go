package quality

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/provider"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// EnvIRDir names the environment variable that points at the public test collections. When it
// is set, the collections must be there: a missing or empty directory fails the test instead of
// skipping it (CI sets it to ../shared/ir beside its clone).
const EnvIRDir = "AGENTFILES_IR_DIR"

// The flags of the quality run: where the public test collections are (the directory named by
// AGENTFILES_IR_DIR, else ../shared/ir beside the checkout), and how many ranks are evaluated per
// topic.
var (
	irDir = flag.String("ir", defaultIRDir(), "directory of test collections in the ../shared/ir layout ($"+EnvIRDir+" sets the default)")
	depth = flag.Int("depth", Depth, "ranks evaluated per topic (trec_eval's default is 1000; without it a default run evaluates 100, a full one 1000)")
)

func defaultIRDir() string {
	if d := os.Getenv(EnvIRDir); d != "" {
		return d
	}
	return "../../../shared/ir"
}

// irRequired reports whether the public collections must be present: AGENTFILES_IR_DIR or -ir
// named them explicitly.
func irRequired() bool {
	if os.Getenv(EnvIRDir) != "" {
		return true
	}
	required := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "ir" {
			required = true
		}
	})
	return required
}

// collections returns the authored set and every collection under -ir. When -ir does not exist
// and nobody asked for it explicitly, it returns the authored set alone and a note saying why
// the public collections were left out; when they were asked for, their absence fails the test.
func collections(t *testing.T) (cols []*Collection, missing string) {
	t.Helper()
	authored, err := LoadAuthored("../../search/testdata/quality.json")
	if err != nil {
		t.Fatal(err)
	}
	cols = []*Collection{authored}
	entries, err := os.ReadDir(*irDir)
	if err != nil {
		if os.IsNotExist(err) && !irRequired() {
			return cols, fmt.Sprintf("public collections not found at %s: only the authored set was measured; "+
				"to measure Cranfield too, put the collections there or set %s=/path/to/ir (a directory of "+
				"collections in the ../shared/ir layout), which also turns this skip into a failure", *irDir, EnvIRDir)
		}
		t.Fatalf("-ir %s: %v (set %s or -ir to a directory of collections in the ../shared/ir layout)", *irDir, err, EnvIRDir)
	}
	for _, e := range entries {
		dir := filepath.Join(*irDir, e.Name())
		if _, err := os.Stat(filepath.Join(dir, "corpus.jsonl")); err != nil {
			continue
		}
		c, err := LoadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	if len(cols) == 1 && irRequired() {
		t.Fatalf("-ir %s holds no collection (no subdirectory with a corpus.jsonl)", *irDir)
	}
	return cols, ""
}

// EnvFull names the environment variable that runs the full quality table: every mode at
// trec_eval's depth of 1000 (the table of BENCHMARKS.md). Without it TestQuality runs the modes
// its checks need at depth 100, which leaves nDCG@10 and P@10 as they are.
const EnvFull = "AGENTFILES_FULL"

// full reports whether the full table was asked for.
func full() bool { return os.Getenv(EnvFull) == "1" }

// evalDepth is the evaluation depth: -depth when given, else Depth in a full run and 100 in a
// default one.
func evalDepth() int {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "depth" })
	if given || full() {
		return *depth
	}
	return 100
}

// The rankings the harness compares. All but the lexical ones use the hashing embedder the
// System was built with.
const (
	modeBM25    = "bm25"
	modeDefault = "default: fused (tmm) + expansion (rm3)"
)

// noExpansion turns query expansion off.
var noExpansion = search.Expansion{FeedbackChunks: -1}

// modes are the rankings measured: BM25 alone and the default always, the variants in a full
// run. "reranked" sends candidates to a Cohere-format rerank server whose scoring is weighted
// query-term overlap (indextest.RerankServer), not a neural model.
func modes(t *testing.T) []Mode {
	ms := []Mode{
		{Name: modeBM25, Lexical: true, Options: search.SearcherOptions{Expansion: noExpansion}},
		{Name: "bm25 + expansion (rm3)", Lexical: true},
		{Name: modeDefault},
	}
	if !full() {
		return ms
	}
	rr := indextest.NewRerankServer(t)
	reranker, err := provider.NewCohereReranker(rr.Endpoint(), provider.CohereRerankerOptions{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return append(ms,
		Mode{Name: "old default: fused (min-max), no expansion", Options: search.SearcherOptions{FuseMethod: search.FuseMinMax, Expansion: noExpansion}},
		Mode{Name: "fused (tmm), no expansion", Options: search.SearcherOptions{Expansion: noExpansion}},
		Mode{Name: "fused (min-max) + expansion", Options: search.SearcherOptions{FuseMethod: search.FuseMinMax}},
		Mode{Name: "fused (rrf) + expansion", Options: search.SearcherOptions{FuseMethod: search.FuseRRF}},
		Mode{Name: "expansion: 5 feedback chunks", Options: search.SearcherOptions{Expansion: search.Expansion{FeedbackChunks: 5}}},
		Mode{Name: "expansion: 20 feedback terms", Options: search.SearcherOptions{Expansion: search.Expansion{FeedbackTerms: 20}}},
		Mode{Name: "expansion: original weight 0.7", Options: search.SearcherOptions{Expansion: search.Expansion{OriginalWeight: 0.7}}},
		Mode{Name: "semantic alone", Options: search.SearcherOptions{BM25Candidates: -1, SemanticWeight: 1, LexicalWeight: 0, MinSemanticScore: ptr(-1.0)}},
		Mode{Name: "reranked (term-overlap test reranker)", Options: search.SearcherOptions{Reranker: reranker, RerankTimeout: time.Minute}},
	)
}

func ptr[T any](v T) *T { return &v }

// TestQuality indexes each collection through the public API and reports nDCG@10, MAP, P@10 and
// R@100 for every mode and for a textbook BM25 computed in the same run, over all topics and
// over the two halves of Collection.Split. It checks the two promises of package search: its
// BM25 equals the textbook one (within 0.005), and the default ranking is at least as good as
// BM25 alone on nDCG@10, P@10 and MAP, also when the documents are dealt over four projects and
// searched with project "*".
func TestQuality(t *testing.T) {
	if testing.Short() {
		t.Skip("quality harness skipped in -short mode")
	}
	ctx := context.Background()
	ms := modes(t)
	depth := evalDepth()
	cols, missing := collections(t)
	if missing != "" {
		t.Run("public collections", func(t *testing.T) { t.Skip(missing) })
	}
	for _, c := range cols {
		t.Run(c.Name, func(t *testing.T) {
			sys, err := NewSystem(ctx, c, memindex.New(), search.NewHashingEmbedder(search.DefaultHashingDimensions))
			if err != nil {
				t.Fatal(err)
			}
			tune, held := c.Split()
			bm := indexdriver.DefaultBM25()
			tb := NewTextbook(c.Docs, indexdriver.Tokenize, bm.K1, bm.B)
			textbook := Run{}
			for _, tp := range c.Topics {
				textbook[tp.ID] = cut(tb.Search(tp.Query), depth)
			}
			var table strings.Builder
			fmt.Fprintf(&table, "\n%s: %d documents, %d judged topics (tuning half %d, held-out half %d), depth %d\n\n",
				c.Name, len(c.Docs), len(c.Topics), len(tune), len(held), depth)
			table.WriteString("| mode | nDCG@10 | P@10 | MAP | R@100 | nDCG@10 tune / held-out | P@10 tune / held-out | t vs bm25 (nDCG@10) |\n|---|---|---|---|---|---|---|---|\n")
			results := map[string]Metrics{}
			var bm25Per []Metrics
			row := func(name string, run Run) {
				all, per := Evaluate(run, c.Topics)
				mt, _ := Evaluate(run, tune)
				mh, _ := Evaluate(run, held)
				results[name] = all
				if name == modeBM25 {
					bm25Per = per
				}
				tstat := "—"
				if bm25Per != nil && name != modeBM25 {
					tstat = fmt.Sprintf("%+.2f", PairedT(ndcgs(per), ndcgs(bm25Per)))
				}
				fmt.Fprintf(&table, "| %s | %.4f | %.4f | %.4f | %.4f | %.4f / %.4f | %.4f / %.4f | %s |\n",
					name, all.NDCG10, all.P10, all.MAP, all.R100, mt.NDCG10, mh.NDCG10, mt.P10, mh.P10, tstat)
			}
			for _, m := range ms {
				run, err := sys.Run(c.Topics, m, depth)
				if err != nil {
					t.Fatal(err)
				}
				row(m.Name, run)
			}
			// The same documents dealt over four projects and searched with project "*".
			split, err := NewSplitSystem(ctx, c, memindex.New(), search.NewHashingEmbedder(search.DefaultHashingDimensions), splitProjects)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms[:1] {
				m.Name = fmt.Sprintf("%s, %d projects, \"*\"", m.Name, splitProjects)
				run, err := split.Run(c.Topics, m, depth)
				if err != nil {
					t.Fatal(err)
				}
				row(m.Name, run)
			}
			run, err := split.Run(c.Topics, Mode{Name: modeDefault}, depth)
			if err != nil {
				t.Fatal(err)
			}
			starDefault := fmt.Sprintf("%s, %d projects, \"*\"", modeDefault, splitProjects)
			row(starDefault, run)
			textbookName := fmt.Sprintf("textbook BM25 (k1 %.2g, b %.2g)", bm.K1, bm.B)
			row(textbookName, textbook)
			t.Log(table.String())

			ref := results[textbookName]
			if d := results[modeBM25].NDCG10 - ref.NDCG10; d < -0.005 || d > 0.005 {
				t.Errorf("bm25 nDCG@10 %.4f is not within 0.005 of the textbook's %.4f", results[modeBM25].NDCG10, ref.NDCG10)
			}
			if d := results[modeBM25].MAP - ref.MAP; d < -0.005 || d > 0.005 {
				t.Errorf("bm25 MAP %.4f is not within 0.005 of the textbook's %.4f", results[modeBM25].MAP, ref.MAP)
			}
			lex := results[modeBM25]
			for _, name := range []string{modeDefault, starDefault} {
				if got := results[name]; got.NDCG10 < lex.NDCG10 || got.P10 < lex.P10 || got.MAP < lex.MAP {
					t.Errorf("%s (nDCG@10 %.4f, P@10 %.4f, MAP %.4f) is worse than BM25 alone (%.4f, %.4f, %.4f)",
						name, got.NDCG10, got.P10, got.MAP, lex.NDCG10, lex.P10, lex.MAP)
				}
			}
		})
	}
}

// cut keeps the first depth results of a topic in trec_eval's order (see rank).
func cut(results []Scored, depth int) []Scored {
	sort.Slice(results, func(i, j int) bool {
		if results[i].Score != results[j].Score {
			return results[i].Score > results[j].Score
		}
		return results[i].DocID > results[j].DocID
	})
	return results[:min(len(results), depth)]
}

// splitProjects is how many projects the all-projects rows deal a collection over.
const splitProjects = 4

func ndcgs(ms []Metrics) []float64 {
	out := make([]float64, len(ms))
	for i, m := range ms {
		out[i] = m.NDCG10
	}
	return out
}

func TestTopicMetrics(t *testing.T) {
	qrels := map[string]int{"a": 2, "b": 1, "c": 1, "z": 0}
	tests := []struct {
		name    string
		results []Scored
		want    Metrics
	}{
		{
			name:    "ideal",
			results: []Scored{{"a", 3}, {"b", 2}, {"c", 1}},
			want:    Metrics{NDCG10: 1, MAP: 1, P10: 0.3, R100: 1},
		},
		{
			name:    "one miss first",
			results: []Scored{{"x", 4}, {"a", 3}, {"b", 2}},
			// DCG = 2/log2(3) + 1/log2(4); ideal = 2 + 1/log2(3) + 1/2.
			want: Metrics{
				NDCG10: (2/math.Log2(3) + 0.5) / (2 + 1/math.Log2(3) + 0.5),
				MAP:    (1.0/2 + 2.0/3) / 3,
				P10:    0.2,
				R100:   2.0 / 3,
			},
		},
		{
			// Ties go to the larger document ID first, whatever order the system returned.
			name:    "tie broken by decreasing docno",
			results: []Scored{{"a", 1}, {"x", 1}},
			want: Metrics{
				NDCG10: (2 / math.Log2(3)) / (2 + 1/math.Log2(3) + 0.5),
				MAP:    (1.0 / 2) / 3,
				P10:    0.1,
				R100:   1.0 / 3,
			},
		},
		{name: "nothing", results: nil, want: Metrics{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := TopicMetrics(tc.results, qrels)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("TopicMetrics (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTextbookMatchesHandComputation(t *testing.T) {
	docs := []Doc{{ID: "1", Text: "wing wing lift"}, {ID: "2", Text: "lift"}, {ID: "3", Text: "drag"}}
	tb := NewTextbook(docs, strings.Fields, 1.2, 0.75)
	got := map[string]float64{}
	for _, s := range tb.Search("wing") {
		got[s.DocID] = s.Score
	}
	// N=3, df=1: idf = ln(1 + 2.5/1.5); dl=3, avgdl=5/3.
	idf := math.Log(1 + 2.5/1.5)
	want := map[string]float64{"1": idf * 2 * 2.2 / (2 + 1.2*(0.25+0.75*3/(5.0/3)))}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Search (-want +got):\n%s", diff)
	}
}

func TestLoadCranfield(t *testing.T) {
	dir := filepath.Join(*irDir, "cranfield")
	if _, err := os.Stat(dir); os.IsNotExist(err) && !irRequired() {
		t.Skipf("%s not found: put the public collections there or set %s=/path/to/ir, which also turns this skip into a failure", dir, EnvIRDir)
	}
	c, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Docs) != 1400 || len(c.Topics) != 225 {
		t.Errorf("cranfield: %d documents, %d judged topics; want 1400 and 225", len(c.Docs), len(c.Topics))
	}
}
