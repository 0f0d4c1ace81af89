package searchtools_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/httpapi"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/adapters/searchtools"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/google/go-cmp/cmp"
)

// allProjectsTools serves file_search over two projects of key-a and one of key-b.
func allProjectsTools(t *testing.T) []adapters.Tool {
	t.Helper()
	e := indextest.NewEnv(t, memindex.New(), indextest.EnvOptions{})
	a, b := indextest.Ctx("key-a"), indextest.Ctx("key-b")
	e.Write(a, "p", "/docs/retry.md", "Retries use exponential backoff with jitter.")
	e.Write(a, "q", "/notes/backoff.md", "Backoff doubles the delay after each failure.")
	e.Write(a, "q", "/other.md", "Nothing relevant in here.")
	e.Write(b, "r", "/secret.md", "Key b's backoff, never shown to key a.")
	e.Drain()
	return searchtools.Tools(e.Searcher)
}

type allProjectsChunk struct {
	Project  string `json:"project"`
	FilePath string `json:"file_path"`
}

func chunkKeys(chunks []allProjectsChunk) []string {
	var out []string
	for _, c := range chunks {
		out = append(out, c.Project+":"+c.FilePath)
	}
	sort.Strings(out)
	return out
}

func TestSearchToolAllProjects(t *testing.T) {
	tools := allProjectsTools(t)
	want := []string{"p:/docs/retry.md", "q:/notes/backoff.md"}
	tests := []struct {
		name, key, project string
		want               []string
	}{
		{"every project of key-a", "key-a", "*", want},
		{"one project names it", "key-a", "q", []string{"q:/notes/backoff.md"}},
		{"every project of key-b", "key-b", "*", []string{"r:/secret.md"}},
		{"a caller without projects", "key-c", "*", nil},
	}

	t.Run("direct", func(t *testing.T) {
		for _, tc := range tests {
			m, err := adapterstest.CallContext(indextest.Ctx(tc.key), t, tools, "file_search",
				`{"project":"`+tc.project+`","query":"backoff"}`)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			var out struct{ Chunks []allProjectsChunk }
			b, _ := json.Marshal(m)
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, chunkKeys(out.Chunks)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.name, diff)
			}
		}
	})

	t.Run("HTTP", func(t *testing.T) {
		ts := httptest.NewServer(httpapi.NewHandler(tools, httpapi.Options{Authenticator: adapters.BearerAuth(nil)}))
		defer ts.Close()
		for _, tc := range tests {
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/tools/file_search",
				strings.NewReader(`{"project":"`+tc.project+`","query":"backoff"}`))
			req.Header.Set("Authorization", "Bearer "+tc.key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var out struct { // the tool's result is the body; a failure is {"error": …}
				Chunks []allProjectsChunk
				Error  adapters.ToolError
			}
			err = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: status %d, %v, error %+v", tc.name, resp.StatusCode, err, out.Error)
			}
			if diff := cmp.Diff(tc.want, chunkKeys(out.Chunks)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.name, diff)
			}
		}
	})

	t.Run("MCP", func(t *testing.T) {
		for _, tc := range tests {
			ac := agentfiles.NewAuthContext(tc.key, "agent")
			cs := adapterstest.Connect(t, tools, mcpsdk.Options{Auth: &ac})
			res, text := mcptest.CallTool(t, cs, "file_search", map[string]any{"project": tc.project, "query": "backoff"})
			if res.IsError {
				t.Fatalf("%s: tool error: %s", tc.name, text)
			}
			var out struct {
				Chunks []allProjectsChunk `json:"chunks"`
			}
			mcptest.Decode(t, res, &out)
			if diff := cmp.Diff(tc.want, chunkKeys(out.Chunks)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.name, diff)
			}
		}
	})
}
