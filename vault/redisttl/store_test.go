package redisttl_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/agentfiles/agentfiles/internal/redistest"
	"github.com/agentfiles/agentfiles/vault/redisttl"
	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"
)

func newStore(t *testing.T, opts redisttl.Options) (*redisttl.Store, *redis.Client) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: redistest.New(t)})
	t.Cleanup(func() { rdb.Close() })
	return redisttl.New(rdb, opts), rdb
}

// waitGone waits until key no longer exists in Redis.
func waitGone(t *testing.T, rdb *redis.Client, key string) {
	t.Helper()
	err := poll.Until(context.Background(), 10*time.Second, key+" expires in Redis", func() (bool, error) {
		n, err := rdb.Exists(context.Background(), key).Result()
		return n == 0, err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPutGetDelete(t *testing.T) {
	s, rdb := newStore(t, redisttl.Options{KeyPrefix: "app:"})
	ctx := context.Background()
	if err := s.Put(ctx, "mcp:files:cred:k1", []byte("sealed-1"), time.Minute); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key   string
		value string
		ok    bool
	}{{"mcp:files:cred:k1", "sealed-1", true}, {"mcp:files:cred:missing", "", false}}
	for _, tc := range tests {
		v, ok, err := s.Get(ctx, tc.key)
		if err != nil || ok != tc.ok || string(v) != tc.value {
			t.Errorf("Get(%q) = %q, %v, %v; want %q, %v", tc.key, v, ok, err, tc.value, tc.ok)
		}
	}
	// The prefix is applied and the TTL is set on the Redis key itself.
	keys, _ := rdb.Keys(ctx, "*").Result()
	if diff := cmp.Diff([]string{"app:mcp:files:cred:k1"}, keys); diff != "" {
		t.Errorf("keys in Redis (-want +got):\n%s", diff)
	}
	if ttl, err := rdb.PTTL(ctx, "app:mcp:files:cred:k1").Result(); err != nil || ttl <= 0 || ttl > time.Minute {
		t.Errorf("PTTL = %v, %v; want (0, 1m]", ttl, err)
	}
	// Replacing keeps one key with the new value.
	if err := s.Put(ctx, "mcp:files:cred:k1", []byte("sealed-2"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := s.Get(ctx, "mcp:files:cred:k1"); string(v) != "sealed-2" {
		t.Errorf("after replace: %q", v)
	}
	for range 2 { // deleting twice: the second is a no-op
		if err := s.Delete(ctx, "mcp:files:cred:k1"); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, _ := s.Get(ctx, "mcp:files:cred:k1"); ok {
		t.Error("key still readable after Delete")
	}
	if n, _ := rdb.Exists(ctx, "app:mcp:files:cred:k1").Result(); n != 0 {
		t.Error("the deleted key is still in Redis")
	}
}

func TestExpiry(t *testing.T) {
	s, rdb := newStore(t, redisttl.Options{})
	ctx := context.Background()
	if err := s.Put(ctx, "short", []byte("v"), 80*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "tiny", []byte("v"), time.Microsecond); err != nil { // rounded up to 1ms
		t.Fatal(err)
	}
	waitGone(t, rdb, "short")
	waitGone(t, rdb, "tiny")
	if _, ok, err := s.Get(ctx, "short"); ok || err != nil {
		t.Errorf("expired key readable: %v %v", ok, err)
	}
}

func TestInvalidTTL(t *testing.T) {
	s, _ := newStore(t, redisttl.Options{})
	for _, ttl := range []time.Duration{0, -time.Second} {
		if err := s.Put(context.Background(), "k", []byte("v"), ttl); !errors.Is(err, agentfiles.ErrInvalidArgument) {
			t.Errorf("Put with ttl %v: %v, want INVALID_ARGUMENT", ttl, err)
		}
	}
}

// TestUnreachable: a dead server gives a retryable UNAVAILABLE from every method, without
// connection details in the message.
func TestUnreachable(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer rdb.Close()
	s := redisttl.New(rdb, redisttl.Options{})
	ctx := context.Background()
	_, _, getErr := s.Get(ctx, "k")
	for name, err := range map[string]error{
		"Put": s.Put(ctx, "k", []byte("v"), time.Minute), "Get": getErr, "Delete": s.Delete(ctx, "k"),
	} {
		var e *agentfiles.Error
		if !errors.As(err, &e) || !errors.Is(err, agentfiles.ErrUnavailable) || !e.Code.Retryable() {
			t.Errorf("%s on a dead server: %v, want a retryable UNAVAILABLE", name, err)
			continue
		}
		if e.Message == "" || strings.Contains(e.Message, "127.0.0.1") {
			t.Errorf("%s: message leaks the address or is empty: %q", name, e.Message)
		}
	}
}
