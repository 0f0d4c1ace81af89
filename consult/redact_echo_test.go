package consult

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// Issue 17 defect 2: a provider that echoes the request (its Authorization header) must not get
// the key into the error or the log, whatever escaping it uses, in an error response or in an
// error event of the stream.
func TestProviderEchoingTheKeyIsRedacted(t *testing.T) {
	const key = "k3y/with+slash" // short, and escaped as k3y\/with+slash by PHP-style encoders
	root := makeTree(t, map[string]string{"a.go": "package a\n"})
	escaped := func(r *http.Request) string {
		return strings.ReplaceAll(r.Header.Get("Authorization"), "/", `\/`)
	}
	tests := []struct {
		name  string
		serve func(w http.ResponseWriter, r *http.Request)
	}{
		{"error response echoing headers", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"received":{"headers":{"Authorization":"`+escaped(r)+`"}}}`)
		}},
		{"error message quoting the key", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"key `+strings.TrimPrefix(escaped(r), "Bearer ")+` is not valid"}}`)
		}},
		{"error event mid-stream", func(w http.ResponseWriter, r *http.Request) {
			sse(w, chunk("x"), `{"error":{"message":"upstream rejected `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`","code":502}}`)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prov := newProvider(t, tc.serve)
			var logs bytes.Buffer
			m, err := NewOpenAIModel("test-model", OpenAIModelOptions{BaseURL: prov.srv.URL + "/v1", APIKey: key,
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			if err != nil {
				t.Fatal(err)
			}
			_, err = Consult(context.Background(), Request{Files: []string{root + "/a.go"}, Query: "q", Model: m})
			if err == nil {
				t.Fatal("no error")
			}
			for what, text := range map[string]string{"error": err.Error(), "log": logs.String()} {
				if strings.Contains(text, "k3y") {
					t.Errorf("%s carries the key: %s", what, text)
				}
			}
		})
	}
}
