package redisttl

import (
	"context"
	"errors"
	"time"

	"github.com/agentfiles/agentfiles/search"
	"github.com/redis/go-redis/v9"
)

// Options configure a Store. The zero value is valid.
type Options struct {
	// KeyPrefix is put before every key (default ""). The Vault already prefixes its keys with
	// credential_cache_prefix; set this only to share one Redis database between deployments.
	KeyPrefix string
}

// Store is a search.TTLStore in Redis. It is safe for concurrent use.
type Store struct {
	rdb    redis.Cmdable
	prefix string
}

var _ search.TTLStore = (*Store)(nil)

// New returns a Store over rdb (a *redis.Client, *redis.ClusterClient or any redis.Cmdable),
// which the caller keeps owning and closes.
func New(rdb redis.Cmdable, opts Options) *Store {
	return &Store{rdb: rdb, prefix: opts.KeyPrefix}
}

// Put implements search.TTLStore with SET key value PX ttl. A ttl below one millisecond is
// rounded up to one millisecond; a ttl <= 0 is INVALID_ARGUMENT (entries never live forever).
func (s *Store) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if ttl <= 0 {
		return search.NewError(search.CodeInvalidArgument, "a TTL store entry needs a positive TTL; pass the credential TTL (credential_cache_ttl_seconds)", "ttl")
	}
	ttl = max(ttl, time.Millisecond).Round(time.Millisecond)
	if err := s.rdb.Set(ctx, s.prefix+key, value, ttl).Err(); err != nil {
		return redisError(ctx, "storing an entry", err)
	}
	return nil
}

// Get implements search.TTLStore with GET; a missing or expired key is (nil, false, nil).
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	b, err := s.rdb.Get(ctx, s.prefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, redisError(ctx, "reading an entry", err)
	}
	return b, true, nil
}

// Take returns the value and removes the key in one step (GETDEL, Redis 6.2 or later), so two
// concurrent callers never both get it.
func (s *Store) Take(ctx context.Context, key string) ([]byte, bool, error) {
	b, err := s.rdb.GetDel(ctx, s.prefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, redisError(ctx, "taking an entry", err)
	}
	return b, true, nil
}

// Delete implements search.TTLStore with DEL; a missing key is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := s.rdb.Del(ctx, s.prefix+key).Err(); err != nil {
		return redisError(ctx, "deleting an entry", err)
	}
	return nil
}

// TTL returns the time key has left to live, and false when it does not exist. For
// diagnostics and tests.
func (s *Store) TTL(ctx context.Context, key string) (time.Duration, bool, error) {
	d, err := s.rdb.PTTL(ctx, s.prefix+key).Result()
	if err != nil {
		return 0, false, redisError(ctx, "reading a TTL", err)
	}
	if d < 0 { // -2: no key; -1 (no expiry) cannot happen for keys written by Put
		return 0, false, nil
	}
	return d, true, nil
}

// redisError hides connection details behind a coded error; context errors pass through.
func redisError(ctx context.Context, what string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	e := search.NewError(search.CodeInternal, "the Redis credential store failed while "+what+"; check that Redis is reachable and retry", "")
	e.Err = err
	return e
}
