package quality

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

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
	c, err := LoadDir(*irDir + "/cranfield")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Docs) != 1400 || len(c.Topics) != 225 {
		t.Errorf("cranfield: %d documents, %d judged topics; want 1400 and 225", len(c.Docs), len(c.Topics))
	}
}
