package search

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestSearcherFusionDefaults: unset weights and floor come from the embedder's Calibration;
// explicit ones are kept; bad ones are INVALID_CONFIG.
func TestSearcherFusionDefaults(t *testing.T) {
	store, index := memstore.New(memstore.Options{}), struct{ indexdriver.Index }{}
	var openai Embedder = uncalibratedEmbedder{}
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name          string
		opts          SearcherOptions
		sem, lex, min float64
	}{
		{"hashing-256", SearcherOptions{Embedder: NewHashingEmbedder(256)}, 0.1, 0.9, 0.55},
		{"hashing-64", SearcherOptions{Embedder: NewHashingEmbedder(64)}, 0.1, 0.9, 0.65},
		{"uncalibrated model", SearcherOptions{Embedder: openai}, 0.5, 0.5, 0},
		{"no embedder", SearcherOptions{}, 0, 1, 0},
		{"explicit weights", SearcherOptions{Embedder: NewHashingEmbedder(256), SemanticWeight: 0.3, LexicalWeight: 0.7}, 0.3, 0.7, 0.55},
		{"lexical weight alone", SearcherOptions{Embedder: openai, LexicalWeight: 1}, 0, 1, 0},
		{"explicit floor 0", SearcherOptions{Embedder: NewHashingEmbedder(256), MinSemanticScore: f(0)}, 0.1, 0.9, 0},
	}
	for _, tc := range tests {
		s, err := NewSearcher(store, index, tc.opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		o := s.Options()
		if o.SemanticWeight != tc.sem || o.LexicalWeight != tc.lex || o.MinSemanticScore == nil || *o.MinSemanticScore != tc.min {
			t.Errorf("%s: weights %v/%v floor %v, want %v/%v %v", tc.name, o.SemanticWeight, o.LexicalWeight, o.MinSemanticScore, tc.sem, tc.lex, tc.min)
		}
		*o.MinSemanticScore = 42 // a copy: the Searcher keeps its own
		if *s.Options().MinSemanticScore == 42 {
			t.Errorf("%s: Options shares the floor with its caller", tc.name)
		}
	}
	for _, bad := range []SearcherOptions{
		{SemanticWeight: -1, LexicalWeight: 1},
		{SemanticWeight: math.Inf(1)},
		{MinSemanticScore: f(math.NaN())},
	} {
		if _, err := NewSearcher(store, index, bad); !errors.Is(err, agentfiles.ErrInvalidConfig) {
			t.Errorf("%+v: %v, want INVALID_CONFIG", bad, err)
		}
	}
}

// TestQualified: a candidate is evidence of a match with a query term (BM25 above 0) or a
// similarity above the floor, each counting only on a leg that weighs in the fusion; nothing
// else.
func TestQualified(t *testing.T) {
	cands := []*candidate{
		{path: "/term", lexical: 0.4, hasLexical: true, semantic: 0.01, hasSemantic: true},
		{path: "/similar", lexical: 0, hasLexical: true, semantic: 0.7, hasSemantic: true},
		{path: "/at-floor", lexical: 0, hasLexical: true, semantic: 0.5, hasSemantic: true},
		{path: "/neither", lexical: 0, hasLexical: true, semantic: 0.2, hasSemantic: true},
		{path: "/scanned", lexical: 1.2, hasLexical: true},
		{path: "/no-terms-similar", semantic: 0.9, hasSemantic: true},
		{path: "/nothing"},
	}
	tests := []struct {
		name     string
		sem, lex float64
		floor    float64
		want     []string
	}{
		{"both legs", 0.1, 0.9, 0.5, []string{"/term", "/similar", "/scanned", "/no-terms-similar"}},
		{"lexical weight 0: similarity alone", 1, 0, 0.5, []string{"/similar", "/no-terms-similar"}},
		{"semantic weight 0: terms alone", 0, 1, 0.5, []string{"/term", "/scanned"}},
		{"a floor below -1 is -1", 0.5, 0.5, -3, []string{"/term", "/similar", "/at-floor", "/neither", "/scanned", "/no-terms-similar"}},
	}
	for _, tc := range tests {
		var got []string
		kept := (&Searcher{opts: SearcherOptions{SemanticWeight: tc.sem, LexicalWeight: tc.lex}}).qualified(slices.Clone(cands), tc.floor)
		for _, c := range kept {
			got = append(got, c.path)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: qualified (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestFuseTMM: theoretical min-max scales BM25 from 0 and similarity from -1 to the best
// candidate's, so that every candidate with a query term or any similarity above -1 scores
// above 0; a candidate without a vector counts as similarity 0.
func TestFuseTMM(t *testing.T) {
	cands := []*candidate{
		{path: "/a", lexical: 4, hasLexical: true, semantic: 0.2, hasSemantic: true},
		{path: "/b", lexical: 0, hasLexical: true, semantic: 0.6, hasSemantic: true},
		{path: "/c", lexical: 2, hasLexical: true, semantic: 0.4, hasSemantic: true},
		{path: "/d", lexical: 1, hasLexical: true}, // scanned: no vector
		{path: "/e", lexical: 0.5, hasLexical: true, semantic: -1, hasSemantic: true},
	}
	fuse(cands, FuseTMM, 0.1, 0.9)
	// semantic: (s+1)/(0.6+1); lexical: l/4.
	want := map[string]float64{
		"/a": 0.1*1.2/1.6 + 0.9*1,
		"/b": 0.1*1.6/1.6 + 0,
		"/c": 0.1*1.4/1.6 + 0.9*0.5,
		"/d": 0.1*1.0/1.6 + 0.9*0.25,
		"/e": 0 + 0.9*0.125,
	}
	got := map[string]float64{}
	for _, c := range cands {
		got[c.path] = c.fused
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("fused (-want +got):\n%s", diff)
	}
	// One candidate: it is the best on both legs.
	one := []*candidate{{path: "/only", lexical: 0.3, hasLexical: true, semantic: 0.1, hasSemantic: true}}
	if fuse(one, FuseTMM, 0.1, 0.9); one[0].fused != 1 {
		t.Errorf("a lone candidate scores %v, want 1", one[0].fused)
	}
}

// TestFuseExactScores: with every candidate scored on both legs, min-max fusion is the weighted
// sum of the scaled scores, and a BM25 of 0 scales to 0.
func TestFuseExactScores(t *testing.T) {
	cands := []*candidate{
		{path: "/a", lexical: 4, hasLexical: true, semantic: 0.2, hasSemantic: true},
		{path: "/b", lexical: 0, hasLexical: true, semantic: 0.6, hasSemantic: true},
		{path: "/c", lexical: 2, hasLexical: true, semantic: 0.4, hasSemantic: true},
	}
	fuse(cands, FuseMinMax, 0.1, 0.9)
	want := []float64{0.9, 0.1, 0.1*0.5 + 0.9*0.5}
	for i, c := range cands {
		if math.Abs(c.fused-want[i]) > 1e-12 {
			t.Errorf("%s: fused %v, want %v", c.path, c.fused, want[i])
		}
	}
	fuse(cands, FuseRRF, 0.1, 0.9)
	if !(cands[0].fused > cands[2].fused && cands[2].fused > cands[1].fused) {
		t.Errorf("RRF order: %v %v %v", cands[0].fused, cands[1].fused, cands[2].fused)
	}
}

// uncalibratedEmbedder is an embedder without a Calibration, as a hosted model's client is.
type uncalibratedEmbedder struct{}

func (uncalibratedEmbedder) Model() string   { return "m" }
func (uncalibratedEmbedder) Dimensions() int { return 8 }
func (uncalibratedEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return make([][]float32, len(texts)), nil
}
