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

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/fileio"
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
				return greetOut{}, fileio.NewError(fileio.CodeNotFound, "nobody is not here; greet somebody else", in.Name)
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
	tests := []struct {
		err          error
		want         adapters.ToolError
		wantInternal bool
		wantStatus   int
	}{
		{fileio.NewError(fileio.CodeQuotaExceeded, "project is full", "/a"), adapters.ToolError{Code: "QUOTA_EXCEEDED"}, false, http.StatusInsufficientStorage},
		{fmt.Errorf("wrapped: %w", adapters.NewError("UNKNOWN_TOOL", "no", "x")), adapters.ToolError{Code: "UNKNOWN_TOOL"}, false, http.StatusNotFound},
		{context.DeadlineExceeded, adapters.ToolError{Code: "TIMEOUT"}, false, http.StatusGatewayTimeout},
		{errors.New(`pq: password authentication failed for "postgres://u:secret@db"`), adapters.ToolError{Code: "INTERNAL"}, true, http.StatusInternalServerError},
	}
	for _, tc := range tests {
		te, internal := adapters.ErrorOf(tc.err)
		if te.Code != tc.want.Code || internal != tc.wantInternal {
			t.Errorf("ErrorOf(%v) = %+v internal=%v, want code %s internal=%v", tc.err, te, internal, tc.want.Code, tc.wantInternal)
		}
		if strings.Contains(te.Message, "secret") || strings.HasPrefix(te.Message, te.Code) {
			t.Errorf("ErrorOf(%v).Message = %q: leaks internals or repeats the code", tc.err, te.Message)
		}
		if got := adapters.HTTPStatus(te.Code); got != tc.wantStatus {
			t.Errorf("HTTPStatus(%s) = %d, want %d", te.Code, got, tc.wantStatus)
		}
	}
	if got := adapters.HTTPStatus("SOME_NEW_CODE"); got != http.StatusBadRequest {
		t.Errorf("unknown coded error status = %d, want 400", got)
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
		{header: "Bearer dev-token", wantHash: fileio.NewAuthContext("dev-token", "").APIKeyHash},
		{header: "bearer   dev-token ", wantHash: fileio.NewAuthContext("dev-token", "").APIKeyHash},
		{header: "Bearer other", wantErr: true},
		{header: "Basic dev-token", wantErr: true},
		{header: "", wantErr: true},
	}
	for _, tc := range tests {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Authorization", tc.header)
		ac, err := authn(r)
		if tc.wantErr {
			if !errors.Is(err, adapters.ErrUnauthenticated) {
				t.Errorf("%q: err = %v, want UNAUTHENTICATED", tc.header, err)
			}
			continue
		}
		if err != nil || ac.APIKeyHash != tc.wantHash || ac.UserIdentity != "developer" {
			t.Errorf("%q: got %+v, %v", tc.header, ac, err)
		}
	}
}
