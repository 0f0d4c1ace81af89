package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentfiles/agentfiles/search"
	"github.com/redis/go-redis/v9"
)

// redisTTLStore keeps the sealed credential envelopes of the search Vault in Redis, so that a
// write accepted by one server process can be embedded by the indexer of another. Keys arrive
// already prefixed by the Vault (settings.mcp.files.security.credential_cache_prefix). It is
// safe for concurrent use.
type redisTTLStore struct {
	rdb *redis.Client
}

var _ search.TTLStore = (*redisTTLStore)(nil)

// openRedis connects to a redis:// URL and checks that the server answers.
func openRedis(ctx context.Context, url string) (*redisTTLStore, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("-redis-url is not a redis:// or rediss:// URL: %w", err)
	}
	rdb := redis.NewClient(opts)
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pingCtx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("-redis-url: Redis at %s does not answer: %w", opts.Addr, err)
	}
	return &redisTTLStore{rdb: rdb}, nil
}

// Put implements search.TTLStore with SET key value PX ttl.
func (s *redisTTLStore) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return s.rdb.Set(ctx, key, value, ttl).Err()
}

// Get implements search.TTLStore; an expired or missing key is (nil, false, nil).
func (s *redisTTLStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := s.rdb.Get(ctx, key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// Delete implements search.TTLStore.
func (s *redisTTLStore) Delete(ctx context.Context, key string) error {
	return s.rdb.Del(ctx, key).Err()
}

func (s *redisTTLStore) close() { _ = s.rdb.Close() }
