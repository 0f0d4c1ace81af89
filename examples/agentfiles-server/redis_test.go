package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/agentfiles/agentfiles/internal/redistest"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/redis/go-redis/v9"
)

// startRedisServer starts the server with its credentials in the Redis at addr, sealed with a
// test KEK, and embeddings from emb (8 dimensions), which need the caller's key.
func startRedisServer(t *testing.T, addr string, emb *indextest.EmbeddingServer) *testServer {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "service.yaml")
	yaml := "settings:\n  mcp:\n    files:\n      security:\n        encryption_keks:\n          \"1\": \"test-kek-secret-0123456789abcdef\"\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return startServer(t, "-config", cfg, "-redis-url", "redis://"+addr+"/0",
		"-embeddings-url", emb.Endpoint(), "-embeddings-model", "test-embed", "-embeddings-dims", "8",
		"-log-level", "off")
}

// TestRedisCredentialHandoff runs search with an API embedder: every write seals the caller's
// key into an envelope in Redis, the indexer opens it to call the embeddings API with that key
// (never another), and deletes it after use.
func TestRedisCredentialHandoff(t *testing.T) {
	addr := redistest.New(t)
	emb := indextest.NewEmbeddingServer(t, 8)
	srv := startRedisServer(t, addr, emb)

	mustCall(t, srv.base, "dev", "file_write", map[string]any{"project": "emb", "path": "/a.md", "content": "vectors from the caller's own key\n"})

	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	var keys []string
	err := poll.Until(ctx, 20*time.Second, "the indexer embeds", func() (bool, error) {
		var err error
		keys, err = rdb.Keys(ctx, "mcp:files:cred*").Result()
		return len(emb.Keys()) > 0 && len(keys) == 0, err
	})
	if err != nil {
		t.Fatalf("indexer did not embed with the caller's key and delete the envelope: %v; API calls %v, envelopes %v", err, emb.Keys(), keys)
	}
	for _, k := range emb.Keys() {
		if k != "dev" {
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
