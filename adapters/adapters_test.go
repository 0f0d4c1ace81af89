package adapters_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/google/go-cmp/cmp"
)

type greetIn struct {
	Name    string `json:"name" jsonschema:"who to greet"`
	Times   int    `json:"times,omitempty" jsonschema:"how often, default 1"`
	Content string `json:"content,omitempty" jsonschema:"secret payload"`
}

type greetOut struct {
	Greeting string `json:"greeting"`
}

func greetTool() adapters.Tool {
	return adapters.NewTool("greet", "Greet", "Greets someone.", adapters.Annotations{ReadOnly: true, Idempotent: true},
		func(ctx context.Context, in greetIn) (greetOut, error) {
			if in.Name == "nobody" {
				return greetOut{}, agentfiles.NewError(agentfiles.CodeNotFound, "nobody is not here; greet somebody else", in.Name)
			}
			times := max(in.Times, 1)
			return greetOut{Greeting: strings.Repeat("hello "+in.Name+" ", times)}, nil
		})
}

func TestNewToolSchemas(t *testing.T) {
	tool := greetTool()
	if diff := cmp.Diff([]string{"name"}, tool.InputSchema.Required); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	if got := tool.InputSchema.Properties["name"].Description; got != "who to greet" {
		t.Errorf("name description = %q", got)
	}
	if tool.OutputSchema.Type != "object" {
		t.Errorf("output schema type = %q, want object", tool.OutputSchema.Type)
	}
}

func TestNewToolArguments(t *testing.T) {
	tool := greetTool()
	tests := []struct {
		name     string
		args     string
		want     any
		wantCode string
		wantMsg  string
	}{
		{name: "valid", args: `{"name":"ada","times":2}`, want: greetOut{Greeting: "hello ada hello ada "}},
		{name: "missing required", args: `{}`, wantCode: "INVALID_ARGUMENT", wantMsg: "name"},
		{name: "empty body counts as {}", args: ``, wantCode: "INVALID_ARGUMENT", wantMsg: "name"},
		{name: "unknown field", args: `{"name":"ada","colour":"red"}`, wantCode: "INVALID_ARGUMENT", wantMsg: "colour"},
		{name: "wrong type", args: `{"name":3}`, wantCode: "INVALID_ARGUMENT", wantMsg: "name"},
		{name: "not an object", args: `["ada"]`, wantCode: "INVALID_ARGUMENT", wantMsg: "an array"},
		{name: "bad json", args: `{"name":`, wantCode: "INVALID_ARGUMENT", wantMsg: "JSON object"},
		{name: "handler error keeps its code", args: `{"name":"nobody"}`, wantCode: "NOT_FOUND", wantMsg: "greet somebody else"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tool.Call(context.Background(), json.RawMessage(tc.args))
			if tc.wantCode == "" {
				if err != nil {
					t.Fatalf("Call: %v", err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
				return
			}
			te, internal := adapters.ErrorOf(err)
			if internal || te.Code != tc.wantCode || !strings.Contains(te.Message, tc.wantMsg) {
				t.Errorf("ErrorOf(%v) = %+v (internal %v), want code %s with %q", err, te, internal, tc.wantCode, tc.wantMsg)
			}
		})
	}
}

func TestErrorOf(t *testing.T) {
	quota := agentfiles.NewCode("QUOTA_EXCEEDED", agentfiles.KindQuota)
	tests := []struct {
		name         string
		err          error
		want         adapters.ToolError
		wantInternal bool
		wantStatus   int
	}{
		{"package code", agentfiles.NewError(quota, "project is full", "/a"),
			adapters.ToolError{Code: "QUOTA_EXCEEDED", Message: "project is full (/a)", Kind: agentfiles.KindQuota}, false, http.StatusInsufficientStorage},
		{"wrapped adapters code", fmt.Errorf("wrapped: %w", agentfiles.NewError(adapters.CodeUnknownTool, "no", "x")),
			adapters.ToolError{Code: "UNKNOWN_TOOL", Message: "no (x)", Kind: agentfiles.KindNotFound}, false, http.StatusNotFound},
		{"retryable outage", agentfiles.WrapError(agentfiles.CodeUnavailable, "the database is unreachable; retry shortly", "", errors.New("dial tcp 10.0.0.1:5432")),
			adapters.ToolError{Code: "UNAVAILABLE", Message: "the database is unreachable; retry shortly", Retryable: true, Kind: agentfiles.KindUnavailable}, false, http.StatusServiceUnavailable},
		{"deadline", context.DeadlineExceeded,
			adapters.ToolError{Code: "TIMEOUT", Message: "the operation ran out of time before it completed; retry it, or narrow the request", Retryable: true, Kind: agentfiles.KindTimeout}, false, http.StatusGatewayTimeout},
		{"uncoded", errors.New(`pq: password authentication failed for "postgres://u:secret@db"`),
			adapters.ToolError{Code: "INTERNAL", Message: "internal error; retry later, and report it to the operator if it persists"}, true, http.StatusInternalServerError},
		{"coded internal hides its message", agentfiles.NewError(agentfiles.CodeInternal, "SELECT * FROM secret", ""),
			adapters.ToolError{Code: "INTERNAL", Message: "internal error; retry later, and report it to the operator if it persists"}, true, http.StatusInternalServerError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			te, internal := adapters.ErrorOf(tc.err)
			if diff := cmp.Diff(tc.want, te); diff != "" || internal != tc.wantInternal {
				t.Errorf("ErrorOf internal=%v (want %v), ToolError (-want +got):\n%s", internal, tc.wantInternal, diff)
			}
			if got := adapters.HTTPStatus(te.Kind); got != tc.wantStatus {
				t.Errorf("HTTPStatus(%s) = %d, want %d", te.Kind, got, tc.wantStatus)
			}
		})
	}
}

// Every kind has its own row in the status table, so no code can silently fall back to a
// default status.
func TestHTTPStatusCoversEveryKind(t *testing.T) {
	for _, k := range agentfiles.Kinds() {
		if got := adapters.HTTPStatus(k); got == http.StatusInternalServerError && k != agentfiles.KindInternal {
			t.Errorf("kind %q has no HTTP status of its own", k)
		}
	}
}

func TestLogArgsRedacts(t *testing.T) {
	var buf strings.Builder
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	tool := greetTool()
	tool.RedactArgs = []string{"name"}
	logger.Info("call", slog.Any("args", adapters.LogArgs(tool, json.RawMessage(`{"name":"ada-secret","content":"file body secret","times":2}`))))
	out := buf.String()
	if strings.Contains(out, "secret") {
		t.Errorf("log contains redacted values: %s", out)
	}
	if !strings.Contains(out, `"times":"2"`) {
		t.Errorf("log lost a plain argument: %s", out)
	}
}

func TestBearerAuth(t *testing.T) {
	authn := adapters.BearerAuth(adapters.StaticTokens(map[string]string{"dev-token": "developer"}))
	tests := []struct {
		header   string
		wantErr  bool
		wantHash string
	}{
		{header: "Bearer dev-token", wantHash: agentfiles.NewAuthContext("dev-token", "").APIKeyHash},
		{header: "bearer   dev-token ", wantHash: agentfiles.NewAuthContext("dev-token", "").APIKeyHash},
		{header: "Bearer other", wantErr: true},
		{header: "Basic dev-token", wantErr: true},
		{header: "", wantErr: true},
	}
	for _, tc := range tests {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Authorization", tc.header)
		ac, err := authn(r)
		if tc.wantErr {
			if !errors.Is(err, agentfiles.ErrUnauthenticated) {
				t.Errorf("%q: err = %v, want UNAUTHENTICATED", tc.header, err)
			}
			continue
		}
		if err != nil || ac.APIKeyHash != tc.wantHash || ac.UserIdentity != "developer" {
			t.Errorf("%q: got %+v, %v", tc.header, ac, err)
		}
	}
}

// TokenAuth gives each accepted token the tenant its entry names, or its own.
func TestTokenAuth(t *testing.T) {
	authn, err := adapters.TokenAuth(map[string]adapters.TokenEntry{
		"k1": {Label: "alice", Tenant: "acme"}, "k2": {Label: "bob", Tenant: "acme"}, "k3": {Label: "carol"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, token := range []string{"k1", "k2", "k3", "k4"} {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Authorization", "Bearer "+token)
		ac, err := authn(r)
		if err != nil {
			got = append(got, agentfiles.ErrorCode(err).String())
			continue
		}
		got = append(got, ac.TenantID()+" "+ac.UserIdentity)
	}
	want := []string{"acme alice", "acme bob", agentfiles.NewAuthContext("k3", "").APIKeyHash + " carol", "UNAUTHENTICATED"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tenant and label per token (-want +got):\n%s", diff)
	}
	if _, err := adapters.TokenAuth(map[string]adapters.TokenEntry{"k": {Tenant: "no spaces"}}); agentfiles.ErrorCode(err) != agentfiles.CodeInvalidConfig {
		t.Errorf("an invalid tenant: %v, want INVALID_CONFIG", err)
	}
}
