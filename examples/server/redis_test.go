package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// embeddingsServer speaks the OpenAI embeddings wire format and records the API keys it saw.
type embeddingsServer struct {
	mu   sync.Mutex
	keys []string
}

func (e *embeddingsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/v1/embeddings" || json.Unmarshal(body, &req) != nil {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	e.keys = append(e.keys, r.Header.Get("Authorization"))
	e.mu.Unlock()
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i, text := range req.Input {
		v := make([]float32, 8)
		for j := range len(text) {
			v[int(text[j])%8]++
		}
		data = append(data, item{Index: i, Embedding: v})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data,
		"usage": map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)}})
}

func (e *embeddingsServer) seen() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.keys...)
}

// TestRedisCredentialHandoff runs search with an API embedder: every write seals the caller's
// key into an envelope in Redis, the indexer opens it to call the embeddings API with that key
// (never another), and deletes it after use.
func TestRedisCredentialHandoff(t *testing.T) {
	addr := redistest.New(t)
	emb := &embeddingsServer{}
	api := httptest.NewServer(emb)
	t.Cleanup(api.Close)
	cfg := filepath.Join(t.TempDir(), "service.yaml")
	yaml := "settings:\n  mcp:\n    files:\n      security:\n        encryption_keks:\n          \"1\": \"test-kek-secret-0123456789abcdef\"\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, "-config", cfg, "-redis-url", "redis://"+addr+"/0",
		"-embeddings-url", api.URL+"/v1/embeddings", "-embeddings-model", "test-embed", "-embeddings-dims", "8",
		"-log-level", "off")

	mustCall(t, srv.base, "dev", "file_write", map[string]any{"project": "emb", "path": "/a.md", "content": "vectors from the caller's own key\n"})

	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	deadline := time.Now().Add(20 * time.Second)
	for {
		keys, err := rdb.Keys(ctx, "mcp:files:cred*").Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(emb.seen()) > 0 && len(keys) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("indexer did not embed with the caller's key and delete the envelope: API calls %v, envelopes %v", emb.seen(), keys)
		}
		time.Sleep(20 * time.Millisecond) // polling interval
	}
	for _, k := range emb.seen() {
		if k != "Bearer dev" {
			t.Fatalf("embeddings API called with %q, want the caller's key", k)
		}
	}
	info, err := rdb.Info(ctx, "stats").Result()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(info, "keyspace_hits:0\r\n") {
		t.Errorf("the envelope was never read from Redis:\n%s", info)
	}

	hits := mustCall(t, srv.base, "dev", "file_search", map[string]any{"project": "emb", "query": "caller key vectors"})
	if chunks, _ := hits["chunks"].([]any); len(chunks) != 1 {
		t.Errorf("file_search = %v, want the one file", hits)
	}
}

// TestRedisWithoutEmbeddingsIsRefused: -redis-url alone has nothing to keep and says so.
func TestRedisWithoutEmbeddingsIsRefused(t *testing.T) {
	err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-redis-url", "redis://127.0.0.1:1/0"},
		stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "-embeddings-url") {
		t.Fatalf("run = %v, want an error pointing at -embeddings-url", err)
	}
}
