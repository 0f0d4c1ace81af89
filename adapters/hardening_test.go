package adapters_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
)

// Schema errors do not repeat the offending value, so neither the agent's answer nor the
// log's error= carries what args.content redacts.
func TestSchemaErrorsDoNotRepeatValues(t *testing.T) {
	tool := greetTool()
	tests := []struct {
		args string
		want string // in the message
	}{
		{`{"name":"a","content":{"api_key":"sk-LEAKME"}}`, "argument content must be a string, not an object"},
		{`{"name":"a","content":["sk-LEAKME"]}`, "argument content must be a string, not an array"},
		{`{"name":"a","times":"sk-LEAKME"}`, "argument times must be an integer, not a string"},
		{`{"name":"a","times":1.5}`, "argument times"},
		{`{"name":"a","` + strings.Repeat("k", 1000) + `":1}`, "unknown argument(s)"},
		{`{"content":"sk-LEAKME"}`, `missing required argument(s) "name"`},
		{`{"name":"a","times":1` + strings.Repeat("0", 400) + `}`, "does not fit"},
	}
	for _, tc := range tests {
		_, err := tool.Call(context.Background(), json.RawMessage(tc.args))
		if agentfiles.ErrorCode(err) != agentfiles.CodeInvalidArgument || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want INVALID_ARGUMENT with %q", tc.args, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "LEAKME") || strings.Contains(err.Error(), "0000000000") || strings.Contains(err.Error(), strings.Repeat("k", 100)) || len(err.Error()) > 400 {
			t.Errorf("%s: the error repeats the value: %v", tc.args, err)
		}
	}
}

func TestLogArgsBounds(t *testing.T) {
	var buf strings.Builder
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	tool := greetTool()
	args := map[string]any{"Content": "sk-LEAKME", "API_KEY": "sk-LEAKME", "name": strings.Repeat("x", 10_000),
		"note": "Authorization: Bearer abcdefghijklmnop1234", strings.Repeat("k", 10_000): 1}
	for i := range 40 {
		args["a"+strings.Repeat("b", i)] = i
	}
	raw, _ := json.Marshal(args)
	logger.Info("call", slog.Any("args", adapters.LogArgs(tool, raw)), slog.String("error", adapters.LogError(agentfiles.NewError(agentfiles.CodeInvalidArgument, strings.Repeat("y", 10_000), ""))))
	out := buf.String()
	if strings.Contains(out, "LEAKME") || strings.Contains(out, "abcdefghijklmnop1234") {
		t.Errorf("log carries a secret: %s", out)
	}
	if len(out) > 4096 {
		t.Errorf("log record of %d bytes", len(out))
	}
	if !strings.Contains(out, "more_args") {
		t.Errorf("log does not say arguments were left out: %s", out)
	}
}

// Arguments that are not UTF-8 text are refused before decoding.
func TestCheckText(t *testing.T) {
	for _, bad := range []string{"\"\xff\"", `"\ud800"`, `"\uDBFF\u0041"`, `"\udc00"`, `"\ud800\ud800"`, "\"\xed\xa0\x80\"", `"\ud800`} {
		if err := adapters.CheckText([]byte(bad)); agentfiles.ErrorCode(err) != agentfiles.CodeInvalidArgument {
			t.Errorf("CheckText(%q) = %v, want INVALID_ARGUMENT", bad, err)
		}
	}
	for _, good := range []string{`"\ud83d\ude00"`, `"\\ud800"`, `"\\\\\ud83d\ude00"`, `"é日本"`, `"\u00e9\"\\"`, `{}`, ``} {
		if err := adapters.CheckText([]byte(good)); err != nil {
			t.Errorf("CheckText(%q) = %v, want nil", good, err)
		}
	}
	err := adapters.CheckText([]byte(`{"project":"p","content":"a\ud800"}`))
	if err == nil || !strings.Contains(err.Error(), "argument content must be UTF-8") {
		t.Errorf("the error does not name the argument: %v", err)
	}
}
