package memorytools_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/httpapi"
	"github.com/google/go-cmp/cmp"
)

// TestOverHTTP: over the JSON binding a result is {"result": text} and each failure has the
// HTTP status of its code's kind, with the memory tool's text as the message.
func TestOverHTTP(t *testing.T) {
	srv := httptest.NewServer(httpapi.NewHandler(memoryTools(t), httpapi.Options{Authenticator: adapters.BearerAuth(nil)}))
	defer srv.Close()
	type answer struct {
		Result string             `json:"result"`
		Error  adapters.ToolError `json:"error"`
	}
	post := func(body string) (int, answer) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/tools/memory", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer key-http")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var a answer
		if err := json.NewDecoder(res.Body).Decode(&a); err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, a
	}
	tests := []struct {
		body   string
		status int
		want   answer
	}{
		{`{"command":"create","path":"/memories/a.md","file_text":"one\none\n"}`, 200, answer{Result: "File created successfully at: /memories/a.md"}},
		{`{"command":"view","path":"/memories/b.md"}`, 404, answer{Error: adapters.ToolError{Code: "NOT_FOUND", Message: "The path /memories/b.md does not exist. Please provide a valid path."}}},
		{`{"command":"str_replace","path":"/memories/a.md","old_str":"one","new_str":"two"}`, 422, answer{Error: adapters.ToolError{Code: "AMBIGUOUS_MATCH",
			Message: "No replacement was performed. Multiple occurrences of old_str `one` in lines: 1, 2. Please ensure it is unique"}}},
		{`{"command":"create","path":"/memories/a.md","file_text":"x"}`, 409, answer{Error: adapters.ToolError{Code: "ALREADY_EXISTS", Message: "Error: File /memories/a.md already exists"}}},
		{`{"command":"delete","path":"/memories/../a.md"}`, 400, answer{Error: adapters.ToolError{Code: "INVALID_PATH",
			Message: `Error: The path /memories/../a.md would escape /memories: "." and ".." are not allowed; write the full path, such as /memories/notes.md`}}},
	}
	for _, tc := range tests {
		status, got := post(tc.body)
		if diff := cmp.Diff(tc.want, got); diff != "" || status != tc.status {
			t.Errorf("%s: status %d, want %d; (-want +got):\n%s", tc.body, status, tc.status, diff)
		}
	}
}
