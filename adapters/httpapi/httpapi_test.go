package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/httpapi"
	"github.com/google/go-cmp/cmp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"text to echo"`
	Fail string `json:"fail,omitempty" jsonschema:"error code to fail with, or 'internal'"`
}

type echoOut struct {
	Text   string `json:"text"`
	Tenant string `json:"tenant"`
}

func tools() []adapters.Tool {
	return []adapters.Tool{adapters.NewTool("echo", "Echo", "Echoes text.", adapters.Annotations{ReadOnly: true, Idempotent: true},
		func(ctx context.Context, in echoIn) (echoOut, error) {
			switch in.Fail {
			case "":
			case "internal":
				return echoOut{}, io.ErrUnexpectedEOF
			default:
				return echoOut{}, agentfiles.NewError(codeNamed(in.Fail), "failing as asked", "")
			}
			ac, _ := agentfiles.AuthFromContext(ctx)
			return echoOut{Text: in.Text, Tenant: ac.APIKeyHash}, nil
		})}
}

func TestHandler(t *testing.T) {
	h := httpapi.NewHandler(tools(), httpapi.Options{Authenticator: adapters.BearerAuth(nil), MaxBodyBytes: 64})
	ts := httptest.NewServer(h)
	defer ts.Close()
	tenant := agentfiles.NewAuthContext("k1", "").APIKeyHash

	tests := []struct {
		name       string
		method     string
		path       string
		token      string
		body       string
		wantStatus int
		wantCode   string
		wantBody   any
	}{
		{"call", "POST", "/tools/echo", "k1", `{"text":"hi"}`, 200, "", echoOut{Text: "hi", Tenant: tenant}},
		{"trailing slash", "POST", "/tools/echo/", "k1", `{"text":"hi"}`, 200, "", echoOut{Text: "hi", Tenant: tenant}},
		{"unknown tool", "POST", "/tools/nope", "k1", `{}`, 404, "UNKNOWN_TOOL", nil},
		{"bad json", "POST", "/tools/echo", "k1", `{"text":`, 400, "INVALID_ARGUMENT", nil},
		{"schema violation", "POST", "/tools/echo", "k1", `{"text":1}`, 400, "INVALID_ARGUMENT", nil},
		{"oversized body", "POST", "/tools/echo", "k1", `{"text":"` + strings.Repeat("x", 100) + `"}`, 413, "PAYLOAD_TOO_LARGE", nil},
		{"missing token", "POST", "/tools/echo", "", `{"text":"hi"}`, 401, "UNAUTHENTICATED", nil},
		{"GET a tool", "GET", "/tools/echo", "k1", ``, 405, "METHOD_NOT_ALLOWED", nil},
		{"coded error", "POST", "/tools/echo", "k1", `{"text":"","fail":"RESOURCE_BUSY"}`, 503, "RESOURCE_BUSY", nil},
		{"internal error", "POST", "/tools/echo", "k1", `{"text":"","fail":"internal"}`, 500, "INTERNAL", nil},
		{"other path", "GET", "/elsewhere", "", ``, 404, "UNKNOWN_TOOL", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, ts.URL+tc.path, strings.NewReader(tc.body))
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, tc.wantStatus, raw)
			}
			if tc.wantCode != "" {
				var body struct{ Error adapters.ToolError }
				if err := json.Unmarshal(raw, &body); err != nil || body.Error.Code != tc.wantCode || body.Error.Message == "" {
					t.Fatalf("body = %s, want error code %s with a message", raw, tc.wantCode)
				}
				if strings.Contains(string(raw), "unexpected EOF") {
					t.Errorf("internal error text leaked: %s", raw)
				}
				return
			}
			var got echoOut
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantBody, got); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListTools(t *testing.T) {
	ts := httptest.NewServer(httpapi.NewHandler(tools(), httpapi.Options{}))
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/tools")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Tools []struct {
			Name        string
			InputSchema struct {
				Required []string
			}
			Annotations map[string]bool
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if len(body.Tools) != 1 || body.Tools[0].Name != "echo" || !body.Tools[0].Annotations["readOnlyHint"] {
		t.Fatalf("tools = %+v", body.Tools)
	}
	if diff := cmp.Diff([]string{"text"}, body.Tools[0].InputSchema.Required); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
}

func TestAnonymousHasNoIdentity(t *testing.T) {
	ts := httptest.NewServer(httpapi.NewHandler(tools(), httpapi.Options{}))
	defer ts.Close()
	resp, err := http.Post(ts.URL+"/tools/echo", "application/json", strings.NewReader(`{"text":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got echoOut
	_ = json.NewDecoder(resp.Body).Decode(&got)
	if resp.StatusCode != 200 || got.Tenant != "" {
		t.Errorf("anonymous call: status %d, tenant %q", resp.StatusCode, got.Tenant)
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
