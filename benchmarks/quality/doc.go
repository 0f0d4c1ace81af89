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
// TestQuality measures the collections under the directory named by -ir or by the environment
// variable AGENTFILES_IR_DIR (default ../shared/ir beside the checkout). When that default is
// absent, as in a fresh clone, it measures the authored set alone and skips the public
// collections with a message; when -ir or AGENTFILES_IR_DIR names a directory, a missing or empty
// one is a failure.
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
