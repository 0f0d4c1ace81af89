package blevebench

import (
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// Scoring models bleve accepts in IndexMapping.ScoringModel.
const (
	ScoringBM25  = index.BM25Scoring  // "bm25"
	ScoringTFIDF = index.TFIDFScoring // "tf-idf", bleve's default
)

// BleveOptions configures [NewBleve].
type BleveOptions struct {
	Analyzer Analyzer
	Scoring  string // ScoringBM25 or ScoringTFIDF
	// BatchDocs is how many documents Add sends to bleve in one Batch (default 1000). Each
	// batch becomes one in-memory segment.
	BatchDocs int
}

// Bleve is the reference side: an in-memory scorch index (bleve's default index type, without
// a path, so nothing is persisted) with one text field "text" that stores no values, no term
// vectors and no doc values, queried with a match query (the OR of the analysed query terms).
// Scorch needs no disk here; bleve's BM25 statistics are only available from scorch (the
// older upsidedown index silently falls back to tf-idf). Search may be called concurrently
// with Search; Add is not concurrent.
type Bleve struct {
	opts BleveOptions
	idx  bleve.Index
}

// NewBleve returns an empty bleve index.
func NewBleve(opts BleveOptions) (*Bleve, error) {
	if opts.BatchDocs <= 0 {
		opts.BatchDocs = 1000
	}
	if opts.Analyzer.name == "" {
		return nil, fmt.Errorf("blevebench: BleveOptions.Analyzer is required (AgentfilesAnalyzer or BleveEnglishAnalyzer)")
	}
	im := mapping.NewIndexMapping()
	im.ScoringModel = opts.Scoring
	im.DefaultAnalyzer = opts.Analyzer.name
	field := mapping.NewTextFieldMapping()
	field.Analyzer = opts.Analyzer.name
	field.Store = false
	field.IncludeTermVectors = false
	field.IncludeInAll = false
	field.DocValues = false
	doc := mapping.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt("text", field)
	im.DefaultMapping = doc
	idx, err := bleve.NewUsing("", im, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("blevebench: new bleve index: %w", err)
	}
	return &Bleve{opts: opts, idx: idx}, nil
}

// Name implements Engine.
func (e *Bleve) Name() string {
	return "bleve " + e.opts.Scoring + ", " + e.opts.Analyzer.name + " analyzer"
}

// Add implements Engine, in batches of BatchDocs.
func (e *Bleve) Add(docs []Doc) error {
	for start := 0; start < len(docs); start += e.opts.BatchDocs {
		batch := e.idx.NewBatch()
		for _, d := range docs[start:min(start+e.opts.BatchDocs, len(docs))] {
			if err := batch.Index(d.ID, map[string]any{"text": d.Text}); err != nil {
				return fmt.Errorf("blevebench: batch %q: %w", d.ID, err)
			}
		}
		if err := e.idx.Batch(batch); err != nil {
			return fmt.Errorf("blevebench: index batch: %w", err)
		}
	}
	return nil
}

// Search implements Engine.
func (e *Bleve) Search(text string, k int) ([]string, error) {
	res, err := e.search(text, k, false)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return ids, nil
}

func (e *Bleve) search(text string, k int, explain bool) (*bleve.SearchResult, error) {
	q := query.NewMatchQuery(text)
	q.SetField("text")
	res, err := e.idx.Search(bleve.NewSearchRequestOptions(q, k, 0, explain))
	if err != nil {
		return nil, fmt.Errorf("blevebench: search %q: %w", text, err)
	}
	return res, nil
}

// Close implements Engine.
func (e *Bleve) Close() error { return e.idx.Close() }
