package searchtools_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/searchtools"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/memindex"
)

// The file_search tool over an in-memory store and index: a written file is found at once, and
// a call without a caller identity is refused.
func Example() {
	store := memstore.New(memstore.Options{})
	svc, _ := fileio.NewService(store, fileio.Options{})
	searcher, _ := search.NewSearcher(store, memindex.New(), search.SearcherOptions{})
	tools := searchtools.Tools(searcher)

	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/docs/retry.md", Content: "Retries use exponential backoff."})

	tool, _ := adapters.Find(tools, "file_search")
	out, _ := tool.Handler(ctx, json.RawMessage(`{"project": "demo", "query": "backoff"}`))
	b, _ := json.Marshal(out)
	fmt.Println(string(b))

	_, err := tool.Handler(context.Background(), json.RawMessage(`{"project": "demo", "query": "backoff"}`))
	te, _ := adapters.ErrorOf(err)
	fmt.Println(te.Code, "retryable:", te.Retryable)
	// Output:
	// {"chunks":[{"project":"demo","file_path":"/docs/retry.md","file_seek_start_bytes":0,"file_seek_end_bytes":32,"chunk_content":"Retries use exponential backoff.","score":1,"lexical_score":0.2876820724517809}],"ranking":"fused","limit":5,"truncated":false,"qualified":1,"note":"1 matching chunk: no other chunk contains a word of the query or is close enough in meaning"}
	// PERMISSION_DENIED retryable: false
}
