package main

// The file_search tool, defined here until package adapters ships adapters.SearchTools; then
// this file goes and search.go calls adapters.SearchTools instead.

import (
	"context"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/search"
)

type fileSearchIn struct {
	Project    string `json:"project" jsonschema:"project name, e.g. 'my-project'"`
	Query      string `json:"query" jsonschema:"what to look for, in words, e.g. 'how do we roll back a deploy'; must not be blank"`
	PathPrefix string `json:"path_prefix,omitempty" jsonschema:"only files whose path starts with this string, e.g. '/docs' (also matches '/docs-old'); default all"`
	Limit      int    `json:"limit,omitempty" jsonschema:"results wanted; default 5, maximum 20 (larger values are clamped)"`
}

type fileSearchOut struct {
	Chunks    []fileio.ChunkEntry `json:"chunks" jsonschema:"best first; file_read(file_path, file_seek_start_bytes, file_seek_end_bytes - file_seek_start_bytes) returns chunk_content"`
	Truncated bool                `json:"truncated" jsonschema:"true when more chunks matched than limit"`
	Note      string              `json:"note,omitempty" jsonschema:"how to get more, or why results may be incomplete"`
}

// searchTools returns file_search over s.
func searchTools(s *search.Searcher) []adapters.Tool {
	return []adapters.Tool{adapters.NewTool("file_search", "Search a project's files",
		"Finds the passages of a project's files that best match a query (BM25 keywords and semantic similarity, "+
			"fused). Each hit is a chunk with its byte range; read around it with file_read. Use it to find where "+
			"something is written before reading whole files. Results follow writes within about a second. "+
			`Example: {"project": "demo", "query": "rollback procedure", "path_prefix": "/runbooks", "limit": 5}.`,
		adapters.Annotations{ReadOnly: true, Idempotent: true},
		func(ctx context.Context, in fileSearchIn) (fileSearchOut, error) {
			r, err := s.Search(ctx, search.Query{Project: in.Project, Query: in.Query, PathPrefix: in.PathPrefix, Limit: in.Limit})
			if err != nil {
				return fileSearchOut{}, err
			}
			out := fileSearchOut{Chunks: make([]fileio.ChunkEntry, 0, len(r.Hits)), Truncated: r.Truncated}
			for _, h := range r.Hits {
				out.Chunks = append(out.Chunks, fileio.ChunkEntry{FilePath: h.Path, FileSeekStartBytes: h.StartByte,
					FileSeekEndBytes: h.EndByte, ChunkContent: h.Content, Score: h.Score})
			}
			switch {
			case r.LimitClamped:
				out.Note = "limit was lowered to the maximum"
			case r.Truncated:
				out.Note = "more chunks matched: raise limit (at most 20) or narrow the query or path_prefix"
			}
			return out, nil
		})}
}
