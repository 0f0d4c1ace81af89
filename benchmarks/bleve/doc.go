// Package blevebench compares the BM25 of github.com/agentfiles/agentfiles/search (served by
// search/memindex) with bleve's BM25, in the same process, on the same documents and queries.
//
// It is a separate Go module nested in the agentfiles repository so that bleve never becomes a
// dependency of the library: `go test ./...` at the repository root does not see it.
//
// # Engines
//
// An [Engine] indexes [Doc]s and returns document IDs for a query, best first. [NewAgentfiles]
// indexes each document as one chunk of one file in a memindex and ranks with
// indexdriver.DefaultBM25; [NewBleve] builds an in-memory scorch index with one text field and ranks
// with a match query (OR of the query terms). Both take an [Analyzer], so analysis and scoring
// can be swapped independently:
//
//   - [AgentfilesAnalyzer] is indexdriver.Tokenize: Unicode words, lower case, Snowball stop words,
//     Snowball (Porter2) English stemmer on ASCII words;
//   - [BleveEnglishAnalyzer] is bleve's "en": Unicode words, possessive 's removed, lower case,
//     bleve's English stop words, Porter stemmer.
//
// # What differs in bleve's "bm25"
//
// bleve v2.5.7 (the newest version whose dependencies the Go proxy serves here) labels its
// scoring "bm25" but departs from Okapi BM25 in four ways, read from its source
// (search/scorer/scorer_term.go, search/searcher/search_term.go, search/scorer/scorer_disjunction.go):
//
//   - tf is sqrt(term frequency), not the frequency;
//   - avgdl is ceil(distinct terms in the field's dictionaries, summed over segments /
//     documents), not the mean document length;
//   - a multi-term query multiplies each term's score by idf·queryNorm (queryNorm =
//     1/sqrt(Σ idf²)), so idf counts twice, and the sum by coord = matched terms / query terms;
//   - the numerator is tf·k1 instead of tf·(k1+1) (a constant factor: ranking is unchanged).
//
// The document length itself is recovered from a float32 norm 1/sqrt(length), so it is exact
// only up to rounding. The quality test therefore reports all four combinations of analyzer and
// engine, so the effect of analysis and of scoring can be read separately.
package blevebench
