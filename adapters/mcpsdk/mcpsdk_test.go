package mcpsdk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type whoamiIn struct {
	Fail string `json:"fail,omitempty" jsonschema:"an error code to fail with"`
}

type whoamiOut struct {
	Tenant   string `json:"tenant"`
	Identity string `json:"identity"`
}

// testTools is a tool set whose result shows the identity the binding handed to the handler.
func testTools() []adapters.Tool {
	return []adapters.Tool{adapters.NewTool("whoami", "Who am I", "Reports the caller's tenant.",
		adapters.Annotations{ReadOnly: true, Idempotent: true},
		func(ctx context.Context, in whoamiIn) (whoamiOut, error) {
			if in.Fail == "internal" {
				return whoamiOut{}, errString("dial tcp 10.0.0.1:5432: password=hunter2")
			}
			if in.Fail != "" {
				return whoamiOut{}, agentfiles.NewError(codeNamed(in.Fail), "failing as asked", "")
			}
			ac, ok := agentfiles.AuthFromContext(ctx)
			if !ok {
				return whoamiOut{}, agentfiles.NewError(agentfiles.CodePermissionDenied, "no identity", "")
			}
			return whoamiOut{Tenant: ac.APIKeyHash, Identity: ac.UserIdentity}, nil
		})}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestRegisterOverInMemoryTransport(t *testing.T) {
	ac := agentfiles.NewAuthContext("stdio-key", "stdio-user")
	server := mcp.NewServer(&mcp.Implementation{Name: "agentfiles-test"}, nil)
	mcpsdk.Register(server, testTools(), mcpsdk.Options{Auth: &ac})
	cs := mcptest.ConnectServer(t, server)
	ctx := context.Background()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 1 || list.Tools[0].Name != "whoami" || !list.Tools[0].Annotations.ReadOnlyHint {
		t.Fatalf("tools = %+v", list.Tools)
	}

	res, text := mcptest.CallTool(t, cs, "whoami", map[string]any{})
	if res.IsError {
		t.Fatalf("unexpected error result: %+v", res.Content)
	}
	var got whoamiOut
	mcptest.Decode(t, res, &got)
	if diff := cmp.Diff(whoamiOut{Tenant: ac.APIKeyHash, Identity: "stdio-user"}, got); diff != "" {
		t.Errorf("structured content (-want +got):\n%s", diff)
	}
	if !strings.Contains(text, ac.APIKeyHash) {
		t.Errorf("text rendering lacks the result: %s", text)
	}

	tests := []struct {
		args     map[string]any
		wantCode string
	}{
		{map[string]any{"fail": "NOT_FOUND"}, "NOT_FOUND"},
		{map[string]any{"fail": "internal"}, "INTERNAL"},
		{map[string]any{"bogus": true}, "INVALID_ARGUMENT"},
	}
	for _, tc := range tests {
		res, text := mcptest.CallTool(t, cs, "whoami", tc.args)
		var te adapters.ToolError
		if err := json.Unmarshal([]byte(text), &te); err != nil || !res.IsError || te.Code != tc.wantCode {
			t.Errorf("args %v: isError=%v text=%s, want code %s", tc.args, res.IsError, text, tc.wantCode)
		}
		if strings.Contains(text, "hunter2") || strings.Contains(text, "10.0.0.1") {
			t.Errorf("internal details leaked: %s", text)
		}
	}
}

func TestAnonymousWithoutAuth(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "agentfiles-test"}, nil)
	mcpsdk.Register(server, testTools(), mcpsdk.Options{})
	res, text := mcptest.CallTool(t, mcptest.ConnectServer(t, server), "whoami", map[string]any{})
	if !res.IsError || !strings.Contains(text, "PERMISSION_DENIED") {
		t.Errorf("anonymous call = %+v, want PERMISSION_DENIED", res.Content)
	}
}

func TestHTTPHandlerAuthenticatesEveryCall(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "agentfiles-test"}, nil)
	mcpsdk.Register(server, testTools(), mcpsdk.Options{})
	authn := adapters.BearerAuth(adapters.StaticTokens(map[string]string{"key-a": "alice", "key-b": "bob"}))
	ts := httptest.NewServer(mcpsdk.HTTPHandler(func(*http.Request) *mcp.Server { return server }, authn, nil))
	t.Cleanup(ts.Close) // after the sessions close

	for _, who := range []struct{ token, identity string }{{"key-a", "alice"}, {"key-b", "bob"}} {
		res, _ := mcptest.CallTool(t, mcptest.ConnectHTTP(t, ts.URL, who.token), "whoami", map[string]any{})
		var got whoamiOut
		mcptest.Decode(t, res, &got)
		want := whoamiOut{Tenant: agentfiles.NewAuthContext(who.token, "").APIKeyHash, Identity: who.identity}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", who.token, diff)
		}
	}

	resp, err := http.Post(ts.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Error adapters.ToolError }
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != http.StatusUnauthorized || body.Error.Code != "UNAUTHENTICATED" {
		t.Errorf("no token: status %d body %+v, want 401 UNAUTHENTICATED", resp.StatusCode, body)
	}
}

// HTTPHandler calls the Authenticator once per HTTP request, accepted or refused.
func TestHTTPHandlerAuthenticatesOncePerRequest(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "agentfiles-test"}, nil)
	mcpsdk.Register(server, testTools(), mcpsdk.Options{})
	bearer := adapters.BearerAuth(nil)
	var authCalls, requests atomic.Int64
	authn := func(r *http.Request) (agentfiles.AuthContext, error) {
		authCalls.Add(1)
		return bearer(r)
	}
	h := mcpsdk.HTTPHandler(func(*http.Request) *mcp.Server { return server }, authn, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)

	res, _ := mcptest.CallTool(t, mcptest.ConnectHTTP(t, ts.URL, "key-a"), "whoami", map[string]any{})
	if res.IsError {
		t.Fatalf("whoami: %+v", res.Content)
	}
	resp, err := http.Post(ts.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	type counts struct{ Requests, AuthCalls int64 }
	n := requests.Load()
	if diff := cmp.Diff(counts{n, n}, counts{n, authCalls.Load()}); diff != "" || n < 3 {
		t.Errorf("after %d requests (want at least 3: initialize, the call, the refused one) (-want +got):\n%s", n, diff)
	}
}

// codeNamed returns the shared or adapters code with that wire name, so a test can ask a tool to
// fail with any of them.
func codeNamed(name string) agentfiles.Code {
	for _, c := range append(agentfiles.SharedCodes(), adapters.Codes()...) {
		if c.String() == name {
			return c
		}
	}
	return agentfiles.NewCode(name, agentfiles.KindInvalid)
}

// TestCallsSayTheAnswerIsSentTwice: every tool call's context carries
// agentfiles.AnswerJSONAndText, so that answer caps count the structured content and its text
// copy; the text copy is the structured content's JSON.
func TestCallsSayTheAnswerIsSentTwice(t *testing.T) {
	type out struct {
		Encoding agentfiles.AnswerEncoding `json:"encoding"`
		Text     string                    `json:"text"`
	}
	tool := adapters.NewTool("encoding", "Encoding", "Reports how its answer is sent.", adapters.Annotations{ReadOnly: true},
		func(ctx context.Context, _ struct{}) (out, error) {
			return out{Encoding: agentfiles.AnswerEncodingFromContext(ctx), Text: "\x01<\"é"}, nil
		})
	server := mcp.NewServer(&mcp.Implementation{Name: "agentfiles-test"}, nil)
	mcpsdk.Register(server, []adapters.Tool{tool}, mcpsdk.Options{})
	res, text := mcptest.CallTool(t, mcptest.ConnectServer(t, server), "encoding", map[string]any{})
	var fromStructured out
	mcptest.Decode(t, res, &fromStructured)
	if diff := cmp.Diff(out{Encoding: agentfiles.AnswerJSONAndText, Text: "\x01<\"é"}, fromStructured); diff != "" {
		t.Errorf("structured content (-want +got):\n%s", diff)
	}
	if want := `{"encoding":1,"text":"\u0001\u003c\"é"}`; text != want {
		t.Errorf("text = %s, want %s", text, want)
	}
	if got := agentfiles.AnswerEncodingFromContext(context.Background()); got != agentfiles.AnswerJSON {
		t.Errorf("a context without an encoding says %v, want AnswerJSON", got)
	}
}
