package pgindex_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/agentfiles/agentfiles/internal/redistest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/agentfiles/agentfiles/search/provider"
	"github.com/agentfiles/agentfiles/search/vault"
	"github.com/agentfiles/agentfiles/search/vault/redisttl"
	"github.com/redis/go-redis/v9"
)

// credentialStack is the production credential path: fileio.Service over pgstore sealing the
// caller's key into Redis through a Vault, and an Indexer over pgindex whose embedder needs the
// caller's key.
type credentialStack struct {
	rdb     *redis.Client
	store   driver.Outbox
	svc     *fileio.Service
	indexer *search.Indexer
	embeds  *indextest.EmbeddingServer
	index   *pgindex.Index
}

const plaintextKey = "sk-live-PLAINTEXT-caller-key-7f3a9c"

func newCredentialStack(t *testing.T, rdb *redis.Client, ttl time.Duration, retryMax int) *credentialStack {
	t.Helper()
	ix, url := newIndex(t, pgindex.Options{})
	v, err := vault.New(map[string]string{"1": "an-old-kek-secret-0123456789abcd", "2": "the-new-kek-secret-0123456789abc"},
		vault.Options{TTL: ttl, Store: redisttl.New(rdb, redisttl.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	pgs, svc := openStoreAndService(t, url, v)
	srv := indextest.NewEmbeddingServer(t, 32)
	emb, err := provider.NewOpenAIEmbedder(srv.Endpoint(), "test-embed", 32, provider.OpenAIEmbedderOptions{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ixr, err := search.NewIndexer(pgs, ix, search.IndexerOptions{Embedder: emb, Credentials: v, RetryMax: retryMax, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return &credentialStack{rdb: rdb, store: pgs, svc: svc, indexer: ixr, embeds: srv, index: ix}
}

// envelopes returns the credential keys in Redis and their values.
func (s *credentialStack) envelopes(t *testing.T) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := make(map[string]string)
	iter := s.rdb.Scan(ctx, 0, "*", 100).Iterator()
	for iter.Next(ctx) {
		v, err := s.rdb.Get(ctx, iter.Val()).Result()
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		out[iter.Val()] = v
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (s *credentialStack) drain(t *testing.T) {
	t.Helper()
	indextest.Drain(t, s.indexer, s.store, 30*time.Second)
}

// TestCredentialHandoffThroughRedis: the sealed envelope exists in Redis only between the write
// and the indexer's use, holds no plaintext key (nor does the outbox row), the embedding call
// carries the caller's key, and the key is gone right after success.
func TestCredentialHandoffThroughRedis(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: redistest.New(t)})
	defer rdb.Close()
	s := newCredentialStack(t, rdb, time.Minute, 2)
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext(plaintextKey, "alice"))
	if _, err := s.svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: "/secret-handoff.md", Content: "credential handoff through redis", Mode: fileio.ModeTruncate}); err != nil {
		t.Fatal(err)
	}
	env := s.envelopes(t)
	if len(env) != 1 {
		t.Fatalf("want exactly one envelope in Redis after the write, got %d", len(env))
	}
	for k, v := range env {
		if !strings.HasPrefix(k, vault.DefaultPrefix+":") {
			t.Errorf("envelope key %q is not under %q", k, vault.DefaultPrefix)
		}
		if strings.Contains(v, plaintextKey) || strings.Contains(k, plaintextKey) {
			t.Error("Redis holds the plaintext API key")
		}
		if !strings.Contains(v, `"kek_id":"2"`) || !strings.Contains(v, `"ciphertext"`) {
			t.Errorf("envelope is not sealed with the newest KEK: %.80s…", v)
		}
		if ttl := s.rdb.PTTL(context.Background(), k).Val(); ttl <= 0 || ttl > time.Minute {
			t.Errorf("envelope TTL %v, want (0, 1m]", ttl)
		}
	}
	var rowsWithKey int
	if err := s.index.Pool().QueryRow(context.Background(),
		"SELECT count(*) FROM mcp_file_index_jobs WHERE credential_ref = '' OR position($1 in credential_ref) > 0", plaintextKey).Scan(&rowsWithKey); err != nil {
		t.Fatal(err)
	}
	if rowsWithKey != 0 {
		t.Errorf("%d outbox rows without a reference or with the plaintext key", rowsWithKey)
	}
	s.drain(t)
	if env := s.envelopes(t); len(env) != 0 {
		t.Errorf("envelopes left in Redis after indexing: %v", env)
	}
	keys := s.embeds.Keys()
	if len(keys) == 0 {
		t.Fatal("the embedding provider was not called")
	}
	for _, k := range keys {
		if k != plaintextKey {
			t.Errorf("embedding call used key %q, want the caller's", k)
		}
	}
	st, _ := s.index.FileStates(context.Background(), driver.Scope{Tenant: agentfiles.NewAuthContext(plaintextKey, "").APIKeyHash, Project: "p"}, "")
	if st["/secret-handoff.md"].EmbeddingModel != "test-embed" {
		t.Errorf("file not embedded with the caller's key: %+v", st)
	}
}

// TestCredentialExpiresInRedis: Redis itself expires an unused envelope; the indexer then finds
// no credential, indexes lexical-only at once, retries, and degrades without calling the
// provider.
func TestCredentialExpiresInRedis(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: redistest.New(t)})
	defer rdb.Close()
	s := newCredentialStack(t, rdb, 300*time.Millisecond, 2)
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext(plaintextKey, "alice"))
	if _, err := s.svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: "/late.md", Content: "the envelope expires before any worker runs", Mode: fileio.ModeTruncate}); err != nil {
		t.Fatal(err)
	}
	if len(s.envelopes(t)) != 1 {
		t.Fatal("no envelope after the write")
	}
	poll.Eventually(t, 10*time.Second, "Redis expires the envelope", func() bool { return len(s.envelopes(t)) == 0 })
	s.drain(t)
	st := s.indexer.Stats()
	if st.Retried != 2 || st.Degraded != 1 {
		t.Errorf("retried %d degraded %d, want 2 and 1", st.Retried, st.Degraded)
	}
	if n, _ := s.embeds.Requests(); n != 0 {
		t.Errorf("embedding provider called %d times without a credential", n)
	}
	states, _ := s.index.FileStates(context.Background(), driver.Scope{Tenant: agentfiles.NewAuthContext(plaintextKey, "").APIKeyHash, Project: "p"}, "")
	if fs := states["/late.md"]; fs.EmbeddingModel != "" || fs.Chunks != 1 {
		t.Errorf("want the file indexed lexical-only, got %+v", fs)
	}
}
