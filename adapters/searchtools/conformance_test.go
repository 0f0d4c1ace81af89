package searchtools_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/searchtools"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/memindex"
)

// TestConformance runs the conformance suite on file_search over a Searcher whose limits and
// query bounds differ from the defaults.
func TestConformance(t *testing.T) {
	e := indextest.NewEnv(t, memindex.New(), indextest.EnvOptions{})
	ctx := indextest.Ctx("key-a")
	e.Write(ctx, "p", "/docs/retry.md", "Retries use exponential backoff with jitter.\n\nThe delay doubles each time.")
	e.Drain()
	s, err := search.NewSearcher(e.Store, e.Index, search.SearcherOptions{
		LimitDefault: 3, LimitMax: 9, MaxQueryBytes: 333, MaxQueryTerms: 17,
	})
	if err != nil {
		t.Fatal(err)
	}
	codes := search.Codes()
	codes = append(codes, memindex.Codes()...)
	adapterstest.TestToolSet(t, searchtools.Tools(s), adapterstest.Options{
		Codes:   codes,
		Context: ctx,
		Calls: []adapterstest.ToolCall{
			{Tool: "file_search", Args: `{"project": "p", "query": "backoff", "limit": 1}`},
			{Tool: "file_search", Args: `{"project": "*", "query": "delay", "glob": "**/*.md"}`},
		},
		BadCalls: []adapterstest.ToolCall{
			{Tool: "file_search", Args: `{"project": "p", "query": "  "}`},
			{Tool: "file_search", Args: `{"project": "", "query": "x"}`},
			{Tool: "file_search", Args: `{"project": "p", "query": "x", "glob": "[a"}`},
		},
		Describe: map[string][]string{
			"file_search": {"limit defaults to 3, at most 9", "at most 333 bytes and 17 distinct words"},
		},
		NotDescribe: map[string][]string{
			"file_search": {"defaults to 5", "at most 20"},
		},
	})
}
