// Package quality measures the retrieval quality of package search on test collections, the
// way information-retrieval papers do, so that ranking defaults are chosen by evidence.
//
// # Collections
//
// [LoadDir] reads a collection in the layout of ../shared/ir (corpus.jsonl, topics.tsv, TREC
// qrels with graded relevance); [LoadAuthored] reads the project's own authored set
// (search/testdata/quality.json). [Collection.Split] halves the topics into a tuning half and a
// held-out half, so a default chosen on one can be checked on the other.
//
// # Measures
//
// [Evaluate] computes nDCG@10, MAP, P@10 and R@100 with trec_eval's semantics: evaluation depth
// 1000, ties broken by document ID, graded gains for nDCG (the grade itself, log2 discount,
// ideal ranking from every judgement) and "relevant" meaning grade ≥ 1 for the others.
// [PairedT] says whether a difference between two systems is more than chance.
//
// # Systems
//
// [Textbook] is an independent BM25 over whole documents, the reference the library's own BM25
// is checked against in the same run.
package quality
