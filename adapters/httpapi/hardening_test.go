package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/httpapi"
)

func post(t *testing.T, url string, body []byte) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// A wrong-typed value does not come back whole in the error or in the log's error=.
func TestWrongTypedValueNotEchoed(t *testing.T) {
	var logs bytes.Buffer
	h := httpapi.NewHandler([]adapters.Tool{adapterstest.EchoWrite()}, httpapi.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ts := httptest.NewServer(h)
	defer ts.Close()
	big := strings.Repeat("sk-LEAKME", 200_000) // 1.8 MB
	huge := strings.Repeat("x", 2<<20)
	tests := []struct {
		args   string
		secret bool // the value is in a redacted argument: not even a preview may show
	}{
		{`{"project":"p","path":"/c","content":{"api_key":"sk-LEAKME"}}`, true},
		{`{"project":"p","path":"/c","content":["sk-LEAKME"]}`, true},
		{`{"project":"p","path":"/c","content":{"k":"` + big + `"}}`, true},
		{`{"project":"p","path":"/c","Content":"sk-LEAKME"}`, true},
		{`{"project":"p","path":"/c","content":1` + strings.Repeat("0", 100_000) + `}`, true},
		{`{"project":"p","path":{"x":"` + huge + `"},"content":"c"}`, false},
		{`{"project":"p","path":"/c","content":"c","` + huge + `":1}`, false},
	}
	for _, tc := range tests {
		args := tc.args
		logs.Reset()
		status, body := post(t, ts.URL+"/tools/file_write", []byte(args))
		if status != http.StatusBadRequest || !strings.Contains(string(body), "INVALID_ARGUMENT") {
			t.Errorf("%.60s: status %d body %.300s, want 400 INVALID_ARGUMENT", args, status, body)
		}
		if strings.Contains(string(body), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") {
			t.Errorf("%.60s: the response repeats more than a short preview of the value: %.300s", args, body)
		}
		if len(body) > 4096 {
			t.Errorf("%.60s: response is %d bytes", args, len(body))
		}
		if logs.Len() > 4096 {
			t.Errorf("%.60s: log is %d bytes", args, logs.Len())
		}
		for what, text := range map[string]string{"response": string(body), "log": logs.String()} {
			if tc.secret && strings.Contains(text, "LEAKME") {
				t.Errorf("%.60s: %s carries the value: %.400s", args, what, text)
			}
		}
	}
}

// Invalid UTF-8 and lone surrogate escapes are refused, not stored as U+FFFD.
func TestInvalidUTF8Refused(t *testing.T) {
	ts := httptest.NewServer(httpapi.NewHandler([]adapters.Tool{adapterstest.EchoWrite()}, httpapi.Options{}))
	defer ts.Close()
	for _, args := range [][]byte{
		[]byte("{\"project\":\"p\",\"path\":\"/c\",\"content\":\"a\xffb\"}"),
		[]byte("{\"project\":\"p\xff\",\"path\":\"/c\",\"content\":\"ab\"}"),
		[]byte(`{"project":"p","path":"/c","content":"a\ud800b"}`),
		[]byte(`{"project":"p","path":"/c","content":"a\udc00b"}`),
		[]byte(`{"project":"p","path":"/c","content":"a\ud800\u0041"}`),
		[]byte(`{"project":"\ud800","path":"/c","content":"ab"}`),
		[]byte("{\"project\":\"p\",\"path\":\"/c\",\"content\":\"\xed\xa0\x80\"}"), // CESU surrogate
	} {
		status, body := post(t, ts.URL+"/tools/file_write", args)
		var got struct{ Error adapters.ToolError }
		_ = json.Unmarshal(body, &got)
		if status != http.StatusBadRequest || got.Error.Code != "INVALID_ARGUMENT" || !strings.Contains(got.Error.Message, "UTF-8") {
			t.Errorf("%q: status %d body %s, want 400 INVALID_ARGUMENT about UTF-8", args, status, body)
		}
	}
	// Valid text, surrogate pairs and escaped backslashes pass unchanged.
	for _, args := range []string{
		`{"project":"p","path":"/c","content":"a\ud83d\ude00b é \\ud800"}`,
		`{"project":"p","path":"/c","content":"日本語 😀"}`,
	} {
		status, body := post(t, ts.URL+"/tools/file_write", []byte(args))
		if status != http.StatusOK {
			t.Errorf("%s: status %d body %s, want 200", args, status, body)
		}
	}
}
