// Package searchtools is the search tool set: one agent tool, "file_search", that finds the
// passages of a project's files that best match a query, through a [search.Searcher].
//
// # Use
//
// Build a Searcher over the fileio store and a search index, keep an Indexer running over the
// store's outbox, and hand the Searcher to [Tools]; serve the result with any binding
// (adapters/mcpsdk, adapters/httpapi), usually next to the file tools of adapters/fileiotools:
//
//	opts := cfg.SearcherOptions()
//	opts.RateLimiter = files.RateLimiter() // the fileio.Service's: one bucket per tenant for both
//	searcher, err := search.NewSearcher(store, index, opts)
//	tools := searchtools.Tools(searcher)
//
// A binary that serves this tool set links package search (and fileio, which it searches) and
// the adapters core, and no other agentfiles family.
//
// # The tool
//
// file_search takes project, query, and optionally path_prefix (a plain string prefix), limit
// (default 5; larger than the Searcher's maximum, 20 by default, it is lowered and
// limit_clamped says so) and min_semantic_score (how similar a chunk without any of the query's
// words must be to be returned; default: the Searcher's, from its embedder's calibration). It
// answers with the chunks best first, each with its file path, its byte range —
// file_read(file_path, start, end - start) returns exactly chunk_content — and its final,
// semantic and keyword scores; with the ranking used ("rerank" or "fused"), whether more chunks
// matched (truncated), how many matched at all (qualified: fewer than limit means nothing was
// left out, and no filler was added), and a note on how to see more. The tenant is the caller's
// identity in the request's context (agentfiles.AuthContext, put there by the binding). The tool
// reads only, so it is marked read-only and idempotent.
//
// project "*" searches every project of the caller that holds a file (at most
// search.MaxAllProjects, the first by name; the note says when more were left out) and ranks
// their chunks together on one scale (keyword statistics shared by the projects, one fusion of
// all candidates; see package search, "All projects"), reranking them in one call when a
// reranker is configured. Every chunk names its project, with "*" or without, so clients see
// one shape. A store that cannot list projects answers "*" with INVALID_ARGUMENT.
//
// # Errors
//
// Failures are *agentfiles.Error values with search's codes: INVALID_QUERY for a blank query or
// one beyond the Searcher's bounds (max_query_bytes, 4096 bytes, and max_query_terms, 64
// distinct terms, by default; the message says which), INVALID_ARGUMENT for a blank project or a
// bad argument, PERMISSION_DENIED without a caller identity, RATE_LIMITED (retryable) when the
// tenant's token bucket is empty, SEARCH_BACKEND_ERROR when the index fails, TIMEOUT
// (retryable) when a PostgreSQL index's statement timeout cut a query short, UNAVAILABLE
// (retryable) when the store or the index cannot be reached for now. A failing embedder or reranker is not an error: the
// results then come from keyword search or fused scores. The bindings report errors as the
// agent-facing {code, message, retryable}.
package searchtools
