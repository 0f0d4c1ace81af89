package provider

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// An embedding or rerank endpoint may echo the request, "Bearer <key>" included. Whatever the provider echoes, and however it escapes it, neither the error nor
// the log carries the key.
func TestProviderEchoingTheKeyIsRedacted(t *testing.T) {
	const key = "k3y/with+slash" // short, and escaped as k3y\/with+slash by PHP-style encoders
	echoes := map[string]func(auth string) (status int, body string){
		"headers as JSON, slash escaped": func(auth string) (int, string) {
			return http.StatusBadRequest, `{"received":{"headers":{"Authorization":"` + strings.ReplaceAll(auth, "/", `\/`) + `"}}}`
		},
		"headers as text": func(auth string) (int, string) {
			return http.StatusInternalServerError, "upstream said no to request with Authorization: " + auth
		},
		"key in the message": func(auth string) (int, string) {
			return http.StatusUnauthorized, `{"error":{"message":"invalid key ` + strings.ReplaceAll(strings.TrimPrefix(auth, "Bearer "), "/", `\/`) + `"}}`
		},
	}
	for name, echo := range echoes {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				status, body := echo(r.Header.Get("Authorization"))
				w.WriteHeader(status)
				io.WriteString(w, body)
			}))
			defer srv.Close()
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			cred := func(context.Context) (string, error) { return key, nil }
			emb, err := NewOpenAIEmbedder(srv.URL, "m", 4, OpenAIEmbedderOptions{Credential: cred, Logger: logger})
			if err != nil {
				t.Fatal(err)
			}
			rr, err := NewCohereReranker(srv.URL, CohereRerankerOptions{Credential: cred, Logger: logger})
			if err != nil {
				t.Fatal(err)
			}
			_, embedErr := emb.Embed(context.Background(), []string{"text"})
			_, rerankErr := rr.Rerank(context.Background(), "q", []string{"a", "b"}, 1)
			for what, err := range map[string]error{"embed": embedErr, "rerank": rerankErr} {
				if err == nil {
					t.Fatalf("%s: no error", what)
				}
				logger.Info("index job will be retried", "error", err) // what the indexer logs
				if strings.Contains(err.Error(), "k3y") {
					t.Errorf("%s error carries the key: %v", what, err)
				}
			}
			if strings.Contains(logs.String(), "k3y") {
				t.Errorf("log carries the key:\n%s", logs.String())
			}
		})
	}
}
