package main

import (
	"context"
	"fmt"
	"time"

	"github.com/agentfiles/agentfiles/search/vault"
	"github.com/agentfiles/agentfiles/search/vault/redisttl"
	"github.com/redis/go-redis/v9"
)

// redisTTLStore keeps the sealed credential envelopes of the vault in Redis (vault/redisttl),
// so that a write accepted by one server process can be embedded by the indexer of another.
// Keys arrive already prefixed by the vault (settings.mcp.files.security.credential_cache_prefix).
// It is safe for concurrent use.
type redisTTLStore struct {
	*redisttl.Store
	rdb *redis.Client
}

var _ vault.TTLStore = (*redisTTLStore)(nil)

// openRedis connects to a redis:// URL and checks that the server answers.
func openRedis(ctx context.Context, url string) (*redisTTLStore, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("%s is not a redis:// or rediss:// URL: %w", flagRef("redis-url"), err)
	}
	rdb := redis.NewClient(opts)
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pingCtx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("%s: Redis at %s does not answer: %w", flagRef("redis-url"), opts.Addr, err)
	}
	return &redisTTLStore{Store: redisttl.New(rdb, redisttl.Options{}), rdb: rdb}, nil
}

func (s *redisTTLStore) close() { _ = s.rdb.Close() }

// ping is the /healthz check of Redis.
func (s *redisTTLStore) ping(ctx context.Context) error { return s.rdb.Ping(ctx).Err() }
