package redisttl

import (
	"context"
	"errors"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/search/vault"
	"github.com/redis/go-redis/v9"
)

// Codes lists every code a Store returns: INVALID_ARGUMENT for a TTL that is not positive,
// UNAVAILABLE when Redis fails, TIMEOUT and CANCELED when the context ends.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{agentfiles.CodeInvalidArgument, agentfiles.CodeUnavailable, agentfiles.CodeTimeout, agentfiles.CodeCanceled}
}

// Options configure a Store. The zero value is valid.
type Options struct {
	// KeyPrefix is put before every key (default ""). The Vault already prefixes its keys with
	// credential_cache_prefix; set this only to share one Redis database between deployments.
	KeyPrefix string
}

// Store is a vault.TTLStore in Redis. It is safe for concurrent use.
type Store struct {
	rdb    redis.Cmdable
	prefix string
}

var (
	_ vault.TTLStore           = (*Store)(nil)
	_ vault.ConditionalDeleter = (*Store)(nil)
)

// New returns a Store over rdb (a *redis.Client, *redis.ClusterClient or any redis.Cmdable),
// which the caller keeps owning and closes.
func New(rdb redis.Cmdable, opts Options) *Store {
	return &Store{rdb: rdb, prefix: opts.KeyPrefix}
}

// Put implements vault.TTLStore with SET key value PX ttl. A ttl below one millisecond is
// rounded up to one millisecond; a ttl <= 0 is INVALID_ARGUMENT (entries never live forever).
func (s *Store) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if ttl <= 0 {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, "a TTL store entry needs a positive TTL; pass the credential TTL (credential_cache_ttl_seconds)", "ttl")
	}
	ttl = max(ttl, time.Millisecond).Round(time.Millisecond)
	if err := s.rdb.Set(ctx, s.prefix+key, value, ttl).Err(); err != nil {
		return redisError(ctx, "storing an entry", err)
	}
	return nil
}

// Get implements vault.TTLStore with GET; a missing or expired key is (nil, false, nil).
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

// Delete implements vault.TTLStore with DEL; a missing key is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := s.rdb.Del(ctx, s.prefix+key).Err(); err != nil {
		return redisError(ctx, "deleting an entry", err)
	}
	return nil
}

// redisError reports a Redis failure as UNAVAILABLE, hiding connection details in the cause;
// context errors pass through.
// deleteIfEqual deletes KEYS[1] if it holds ARGV[1], in one step.
var deleteIfEqual = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// DeleteIfEqual deletes key if it still holds value, atomically (a Lua script); see
// vault.ConditionalDeleter.
func (s *Store) DeleteIfEqual(ctx context.Context, key string, value []byte) error {
	if err := deleteIfEqual.Run(ctx, s.rdb, []string{s.prefix + key}, value).Err(); err != nil && !errors.Is(err, redis.Nil) {
		return redisError(ctx, "deleting an entry", err)
	}
	return nil
}

func redisError(ctx context.Context, what string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return agentfiles.WrapError(agentfiles.CodeUnavailable, "the Redis credential store failed while "+what+"; check that Redis is reachable and retry", "", err)
}
