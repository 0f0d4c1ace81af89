package blevebench

import (
	"encoding/json"
	"fmt"
	"os"
)

// Collection is a retrieval test collection: documents, queries and graded relevance
// judgements (2 answers the query, 1 is related; unjudged documents are not relevant).
type Collection struct {
	About   string  `json:"about"`
	Docs    []Doc   `json:"documents"`
	Queries []Query `json:"queries"`
}

// Query is one query of a Collection with its judgements by document ID.
type Query struct {
	ID         string         `json:"id"`
	Text       string         `json:"text"`
	Judgements map[string]int `json:"judgements"`
}

// LoadCollection reads a collection in the JSON layout of search/testdata/quality.json.
func LoadCollection(path string) (*Collection, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("blevebench: read collection: %w", err)
	}
	var c Collection
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("blevebench: parse %s: %w", path, err)
	}
	if len(c.Docs) == 0 || len(c.Queries) == 0 {
		return nil, fmt.Errorf("blevebench: %s has %d documents and %d queries; both must be non-empty", path, len(c.Docs), len(c.Queries))
	}
	return &c, nil
}
