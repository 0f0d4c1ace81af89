package search

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestExpandedQuery checks RM3's query against a computation by hand.
func TestExpandedQuery(t *testing.T) {
	e := Expansion{FeedbackChunks: 2, FeedbackTerms: 2, OriginalWeight: 0.5}
	// Chunk 1 (score 2): jitter 3, backoff 2, delay 1; cut to its 2 most frequent: jitter 3/5,
	// backoff 2/5. Chunk 2 (score 1): delay 2, then backoff and jitter 1 each, the tie going to
	// "backoff"; "x" is too short: delay 2/3, backoff 1/3. Model: jitter 6/5, backoff 4/5+1/3
	// = 17/15, delay 2/3; kept: jitter and backoff, summing to 35/15. Query: backoff 1/2 +
	// 1/2·17/35 = 26/35, jitter 1/2·18/35 = 9/35.
	docs := []feedbackChunk{
		{text: "backoff backoff jitter jitter jitter delay", score: 2},
		{text: "delay delay jitter backoff x", score: 1},
	}
	long := strings.Repeat("a", maxFeedbackRunes+1)
	tests := []struct {
		name        string
		terms       []string
		docs        []feedbackChunk
		e           Expansion
		maxAdded    int
		wantTerms   []string
		wantWeights []float64
	}{
		{"by hand", []string{"backoff"}, docs, e, 10, []string{"backoff", "jitter"}, []float64{26.0 / 35, 9.0 / 35}},
		{"original terms first", []string{"delay", "backoff"}, docs, e, 10,
			// Original 1/4 each; backoff gains 1/2·17/35, jitter 1/2·18/35.
			[]string{"delay", "backoff", "jitter"}, []float64{0.25, 0.25 + 8.5/35, 9.0 / 35}},
		{"no room for a term", []string{"backoff"}, docs, e, 0, []string{"backoff"}, nil},
		{"no feedback", []string{"backoff"}, nil, e, 10, []string{"backoff"}, nil},
		{"feedback chunks of score 0 teach nothing", []string{"backoff"}, []feedbackChunk{{text: "jitter", score: 0}}, e, 10, []string{"backoff"}, nil},
		{"terms of 1 or more than 20 characters are never feedback", []string{"backoff"},
			[]feedbackChunk{{text: "q q q " + long + " " + long + " jitter", score: 1}}, e, 10, []string{"backoff", "jitter"}, []float64{0.5, 0.5}},
		{"at most maxAdded terms", []string{"retry"}, docs, Expansion{FeedbackChunks: 2, FeedbackTerms: 3, OriginalWeight: 0.5}, 1,
			// Cut to 3 terms, chunk 1 gives jitter 3/6·2, backoff 2/6·2, delay 1/6·2 and chunk 2
			// delay 2/4, backoff 1/4, jitter 1/4: jitter 5/4, backoff 11/12, delay 5/6 (sum 3).
			// Only jitter fits: 1/2·(5/4)/3.
			[]string{"retry", "jitter"}, []float64{0.5, 0.5 * 5 / 12}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			terms, weights := expandedQuery(tc.terms, tc.docs, tc.e, tc.maxAdded)
			if diff := cmp.Diff(tc.wantTerms, terms); diff != "" {
				t.Errorf("terms (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantWeights, weights, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("weights (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExpandedQueryDeterministic: the same feedback gives the same query, whatever order Go's
// maps iterate in.
func TestExpandedQueryDeterministic(t *testing.T) {
	docs := []feedbackChunk{{text: "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda", score: 1}}
	e := Expansion{FeedbackChunks: 1, FeedbackTerms: 4, OriginalWeight: 0.5}
	first, _ := expandedQuery([]string{"omega"}, docs, e, 10)
	for range 50 {
		again, _ := expandedQuery([]string{"omega"}, docs, e, 10)
		if diff := cmp.Diff(first, again); diff != "" {
			t.Fatalf("expanded query changed (-first +again):\n%s", diff)
		}
	}
	if diff := cmp.Diff([]string{"omega", "alpha", "beta", "delta", "epsilon"}, first); diff != "" {
		t.Errorf("ties break by term (-want +got):\n%s", diff)
	}
}
