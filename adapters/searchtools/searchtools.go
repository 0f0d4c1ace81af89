package searchtools

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/search"
)

type fileSearchIn struct {
	Project    string `json:"project" jsonschema:"project name, e.g. 'my-project', or '*' to search every project of yours (each chunk names its project)"`
	Query      string `json:"query" jsonschema:"what to look for, in words or a phrase, e.g. 'retry backoff policy'; must not be blank"`
	PathPrefix string `json:"path_prefix,omitempty" jsonschema:"only files whose path starts with this string, e.g. '/docs' (a plain string prefix: it also matches '/docs-old/a.md'); default: all files"`
	Glob       string `json:"glob,omitempty" jsonschema:"only files whose path matches, as in file_grep: without '/' the base name ('*.md'), with '/' the path from the root ('docs/**/*.md')"`
	Limit      int    `json:"limit,omitempty" jsonschema:"chunks wanted; the default and the maximum are in the tool description (larger values are lowered to the maximum and limit_clamped says so)"`
	// MinSemanticScore is a pointer so that an absent value (the server's default) differs from 0.
	MinSemanticScore *float64 `json:"min_semantic_score,omitempty" jsonschema:"how similar in meaning (semantic_score, a cosine similarity) a chunk containing none of the query's words must be to be returned, e.g. 0.4; lower it to see looser matches, raise it above 1 for keyword matches only; default: the server's, chosen for its embedding model"`
}

type fileSearchChunk struct {
	Project            string  `json:"project" jsonschema:"project of the file the chunk comes from (with project '*', one of yours)"`
	FilePath           string  `json:"file_path" jsonschema:"path of the file the chunk comes from"`
	FileSeekStartBytes int64   `json:"file_seek_start_bytes" jsonschema:"byte offset where the chunk starts (inclusive)"`
	FileSeekEndBytes   int64   `json:"file_seek_end_bytes" jsonschema:"byte offset where the chunk ends (exclusive); file_read(file_path, start, end - start) returns chunk_content"`
	ChunkContent       string  `json:"chunk_content" jsonschema:"the chunk's text"`
	Score              float64 `json:"score" jsonschema:"final score, higher is better: the reranker's relevance, or the fused score (see ranking)"`
	SemanticScore      float64 `json:"semantic_score,omitempty" jsonschema:"cosine similarity of query and chunk embeddings (absent: 0, or the chunk has no embedding yet)"`
	LexicalScore       float64 `json:"lexical_score,omitempty" jsonschema:"BM25 keyword score of the query, expanded with the words most frequent in its best matches (absent: none of those words occurs in the chunk)"`
}

type fileSearchOut struct {
	Chunks       []fileSearchChunk `json:"chunks" jsonschema:"best first"`
	Ranking      string            `json:"ranking" jsonschema:"'rerank' when a reranking model ordered the chunks, 'fused' when semantic and keyword scores were combined (no reranker, or it failed)"`
	Limit        int               `json:"limit" jsonschema:"the limit applied"`
	LimitClamped bool              `json:"limit_clamped,omitempty" jsonschema:"true when the requested limit was above the maximum and was lowered"`
	Truncated    bool              `json:"truncated" jsonschema:"true when more chunks matched than limit"`
	Qualified    int               `json:"qualified" jsonschema:"how many chunks matched at all (contain a query word or a word the query was expanded with, or are similar in meaning above min_semantic_score) among those considered; fewer than limit means every match is returned"`
	Note         string            `json:"note,omitempty" jsonschema:"how to get more results, or why they may be incomplete"`
}

// Tools returns the file_search tool over s: hybrid keyword and semantic retrieval over a
// project's files, with the parameters project, query, path_prefix and limit. The tenant comes from the context's agentfiles.AuthContext (the bindings put it
// there); errors carry package search's codes (INVALID_QUERY, also for a query beyond the
// Searcher's MaxQueryBytes or MaxQueryTerms, RATE_LIMITED from its RateLimiter — hand it the
// fileio.Service's limiter so both share one bucket per tenant —, RESOURCE_BUSY when the
// caller's other searches held its slots (MaxConcurrentPerTenant) too long, PERMISSION_DENIED,
// SEARCH_BACKEND_ERROR, TIMEOUT when a PostgreSQL index's statement timeout expires, …).
//
// s must not be nil. The tool is safe for concurrent use, as the Searcher is.
func Tools(s *search.Searcher) []adapters.Tool {
	if s == nil {
		panic("searchtools.Tools: nil *search.Searcher")
	}
	opts := s.Options()
	limitMax := opts.LimitMax
	bounds := ""
	if opts.MaxQueryBytes > 0 && opts.MaxQueryTerms > 0 {
		bounds = fmt.Sprintf("A query is at most %d bytes and %d distinct words (INVALID_QUERY beyond). ", opts.MaxQueryBytes, opts.MaxQueryTerms)
	}
	bounds += fmt.Sprintf("At most %d of your searches run at once; another waits for one of them", opts.MaxConcurrentPerTenant)
	if opts.SlotWait > 0 {
		bounds += fmt.Sprintf(", at most %s", opts.SlotWait)
	}
	bounds += " (RESOURCE_BUSY after that: retry when one has finished). "
	return []adapters.Tool{adapters.NewTool("file_search", "Search a project's files",
		"Finds the passages (chunks) of a project's files that best match a query, combining keyword (BM25) "+
			"and semantic similarity, reranked when a reranker is configured. Each chunk comes with its byte "+
			"range: call file_read(file_path, file_seek_start_bytes, file_seek_end_bytes - file_seek_start_bytes) "+
			"for exactly that text, or read around it. Use it to find where something is written before reading "+
			"whole files. Deleted files are never returned; files written moments ago are found by keywords "+
			"even before they are indexed. The query is expanded with the words most frequent in its best keyword matches, "+
			"so a chunk may match in other words. Only chunks that contain a query word (or one it was expanded with) or are close in meaning are returned, "+
			"so a search may return fewer than limit chunks (qualified says how many matched), or none. "+
			"path_prefix is a plain string prefix; glob keeps files whose path matches ('**/*.md'). "+
			fmt.Sprintf("limit defaults to %d, at most %d. ", opts.LimitDefault, limitMax)+bounds+
			fmt.Sprintf(`project "*" searches every project of yours that holds a file (the first %d by name) and ranks their chunks together; `, search.MaxAllProjects)+
			"each chunk names its project, and scores from different projects are on one scale. "+
			`Example: {"project": "demo", "query": "how are retries backed off", "path_prefix": "/docs", "limit": 5}.`,
		adapters.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: false},
		func(ctx context.Context, in fileSearchIn) (fileSearchOut, error) {
			r, err := s.Search(ctx, search.Query{Project: in.Project, Query: in.Query, PathPrefix: in.PathPrefix, Glob: in.Glob, Limit: in.Limit,
				MinSemanticScore: in.MinSemanticScore})
			if err != nil {
				return fileSearchOut{}, err
			}
			return output(r, limitMax), nil
		})}
}

// output is the tool's answer for r, with a note on how to see more.
func output(r search.Result, limitMax int) fileSearchOut {
	out := fileSearchOut{Chunks: make([]fileSearchChunk, 0, len(r.Hits)), Ranking: string(r.Ranking),
		Limit: r.Limit, LimitClamped: r.LimitClamped, Truncated: r.Truncated, Qualified: r.Qualified}
	for _, h := range r.Hits {
		c := fileSearchChunk{Project: h.Project, FilePath: h.Path, FileSeekStartBytes: h.StartByte, FileSeekEndBytes: h.EndByte,
			ChunkContent: h.Content, Score: h.Score}
		if h.HasSemantic {
			c.SemanticScore = h.SemanticScore
		}
		if h.HasLexical {
			c.LexicalScore = h.LexicalScore
		}
		out.Chunks = append(out.Chunks, c)
	}
	switch {
	case r.LimitClamped:
		out.Note = "limit was lowered to the maximum; narrow the query or path_prefix to see other chunks"
	case r.Truncated && r.Limit < limitMax:
		out.Note = "more chunks matched: raise limit or narrow the query or path_prefix"
	case r.Truncated:
		out.Note = "more chunks matched: narrow the query or path_prefix"
	case r.ProjectEmpty:
		out.Note = "this project holds no files, so no query can match: check the project name (project \"*\" searches every project of yours), or write files with file_write first"
	case r.Qualified == 0:
		out.Note = "no chunk contains a word of the query or is close enough in meaning; try other words"
	case r.Qualified < r.Limit:
		out.Note = fmt.Sprintf("%d matching %s: no other chunk contains a word of the query or is close enough in meaning", r.Qualified, plural(r.Qualified, "chunk", "chunks"))
	}
	if r.PendingScanned < r.PendingFiles {
		out.Note += "; some recently written files are not indexed yet and were not scanned, retry shortly"
	}
	if r.ProjectsTruncated {
		out.Note += fmt.Sprintf("; only your first %d projects by name were searched, name a project to search another", r.Projects)
	}
	out.Note = strings.TrimPrefix(out.Note, "; ")
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
