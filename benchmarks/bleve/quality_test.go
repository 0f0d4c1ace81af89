package blevebench

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// qualityPath is the collection authored for package search's retrieval-quality test. It is
// not a public benchmark: no public test collection ships in a package this repository can
// reach (see README.md).
const qualityPath = "../../search/testdata/quality.json"

type engineSpec struct {
	name string
	new  func() (Engine, error)
}

func specs() []engineSpec {
	bleveWith := func(a Analyzer, scoring string) func() (Engine, error) {
		return func() (Engine, error) { return NewBleve(BleveOptions{Analyzer: a, Scoring: scoring}) }
	}
	return []engineSpec{
		{"agentfiles BM25 + agentfiles analyzer (the library as shipped)", func() (Engine, error) { return NewAgentfiles(AgentfilesAnalyzer), nil }},
		{"agentfiles BM25 + bleve en analyzer", func() (Engine, error) { return NewAgentfiles(BleveEnglishAnalyzer), nil }},
		{"bleve bm25 + agentfiles analyzer", bleveWith(AgentfilesAnalyzer, ScoringBM25)},
		{"bleve bm25 + bleve en analyzer (bleve as configured by a user)", bleveWith(BleveEnglishAnalyzer, ScoringBM25)},
		{"bleve tf-idf (default) + bleve en analyzer", bleveWith(BleveEnglishAnalyzer, ScoringTFIDF)},
	}
}

func build(t testing.TB, spec engineSpec, docs []Doc) Engine {
	t.Helper()
	e, err := spec.new()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	if err := e.Add(docs); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestQuality ranks the collection with each engine and logs nDCG@10 and recall@20 as a
// Markdown table. The floor only catches a broken engine (an empty or random ranking scores far
// below it); the table is the result.
func TestQuality(t *testing.T) {
	col, err := LoadCollection(qualityPath)
	if err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	fmt.Fprintf(&report, "\n| engine | nDCG@10 | recall@20 |\n|---|---|---|\n")
	for _, spec := range specs() {
		e := build(t, spec, col.Docs)
		var ndcg, recall float64
		for _, q := range col.Queries {
			ranked, err := e.Search(q.Text, 20)
			if err != nil {
				t.Fatal(err)
			}
			ndcg += NDCG(ranked, q.Judgements, 10)
			recall += Recall(ranked, q.Judgements, 20)
		}
		n := float64(len(col.Queries))
		fmt.Fprintf(&report, "| %s | %.3f | %.3f |\n", spec.name, ndcg/n, recall/n)
		if ndcg/n < 0.3 {
			t.Errorf("%s: nDCG@10 %.3f is below the breakage floor 0.3", spec.name, ndcg/n)
		}
	}
	t.Logf("retrieval quality on %s (%d documents, %d queries; AUTHORED, not a public collection):%s",
		qualityPath, len(col.Docs), len(col.Queries), report.String())
}

// TestSameAnalyzerAgreement indexes a synthetic corpus in memindex and in bleve with the same
// analyzer and checks that both match exactly the same documents for every query (the union of
// the documents containing a query term: nothing is lost or invented on either side), then logs
// how much their top 10 overlap, which differs only through scoring.
func TestSameAnalyzerAgreement(t *testing.T) {
	s := NewSynth(7, 3000)
	docs := s.Docs(2000, 60)
	queries := s.Queries(100)
	ours := build(t, specs()[0], docs)
	theirs := build(t, specs()[2], docs)
	overlap := 0.0
	for _, q := range queries {
		all, err := ours.Search(q, len(docs))
		if err != nil {
			t.Fatal(err)
		}
		ref, err := theirs.Search(q, len(docs))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := sortedCopy(all), sortedCopy(ref); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("query %q: agentfiles matched %d documents, bleve %d; the sets must be equal", q, len(got), len(want))
		}
		overlap += overlapAt(all, ref, 10)
	}
	t.Logf("same analyzer, %d documents, %d queries: identical match sets; mean top-10 overlap agentfiles BM25 vs bleve bm25 = %.2f",
		len(docs), len(queries), overlap/float64(len(queries)))
}

// TestBleveScoresWithBM25 guards against bleve silently scoring with tf-idf (as its upsidedown
// index does when asked for bm25): the explanation of a hit must name the bm25 model.
func TestBleveScoresWithBM25(t *testing.T) {
	for _, scoring := range []string{ScoringBM25, ScoringTFIDF} {
		e, err := NewBleve(BleveOptions{Analyzer: BleveEnglishAnalyzer, Scoring: scoring})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if err := e.Add([]Doc{{"a", "vacuum reclaims storage"}, {"b", "replication copies the log"}, {"c", "vacuum vacuum tables"}}); err != nil {
			t.Fatal(err)
		}
		res, err := e.search("vacuum storage", 3, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 2 {
			t.Fatalf("%s: %d hits, want 2 (a and c)", scoring, len(res.Hits))
		}
		expl := fmt.Sprint(res.Hits[0].Expl)
		if got := strings.Contains(expl, "as per bm25 model"); got != (scoring == ScoringBM25) {
			t.Errorf("%s: explanation mentions the bm25 model = %v:\n%s", scoring, got, expl)
		}
	}
}

func sortedCopy(ids []string) []string {
	out := append([]string(nil), ids...)
	slices.Sort(out)
	return out
}

func overlapAt(a, b []string, k int) float64 {
	in := make(map[string]bool)
	for _, id := range a[:min(k, len(a))] {
		in[id] = true
	}
	n := 0
	for _, id := range b[:min(k, len(b))] {
		if in[id] {
			n++
		}
	}
	return float64(n) / float64(k)
}
