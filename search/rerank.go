package search

import "context"

// Reranker scores documents against a query with a cross-encoder or similar model. Rerank
// returns at most topN results, each naming a document by its index in documents, ordered by
// Score descending. Implementations must be safe for concurrent use.
type Reranker interface {
	Rerank(ctx context.Context, query string, documents []string, topN int) ([]RerankResult, error)
	Model() string
}

// RerankResult is the relevance of documents[indexdriver.Index].
type RerankResult struct {
	Index int
	Score float64
}

// DefaultRerankModel is the rerank model the configuration names when rerank.model is unset.
const DefaultRerankModel = "rerank-v3.5"
