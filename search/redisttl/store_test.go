package redisttl_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/redistest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/redisttl"
	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"
)

func newStore(t *testing.T, opts redisttl.Options) (*redisttl.Store, *redis.Client) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: redistest.New(t)})
	t.Cleanup(func() { rdb.Close() })
	return redisttl.New(rdb, opts), rdb
}

// waitGone polls until key no longer exists in Redis, failing after a deadline.
func waitGone(t *testing.T, rdb *redis.Client, key string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := rdb.Exists(context.Background(), key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still exists after 10s", key)
		}
		time.Sleep(5 * time.Millisecond) // polling interval, not a wait for a fixed event
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
	if ttl, ok, err := s.TTL(ctx, "mcp:files:cred:k1"); err != nil || !ok || ttl <= 0 || ttl > time.Minute {
		t.Errorf("TTL = %v, %v, %v; want (0, 1m]", ttl, ok, err)
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
	if _, ok, _ := s.TTL(ctx, "mcp:files:cred:k1"); ok {
		t.Error("TTL reports a deleted key")
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
		if err := s.Put(context.Background(), "k", []byte("v"), ttl); !errors.Is(err, search.ErrInvalidArgument) {
			t.Errorf("Put with ttl %v: %v, want INVALID_ARGUMENT", ttl, err)
		}
	}
}

// TestTakeOnce: 32 goroutines race to Take one key; exactly one gets it.
func TestTakeOnce(t *testing.T) {
	s, _ := newStore(t, redisttl.Options{})
	ctx := context.Background()
	for round := range 20 {
		if err := s.Put(ctx, "once", []byte("v"), time.Minute); err != nil {
			t.Fatal(err)
		}
		var winners atomic.Int32
		var wg sync.WaitGroup
		for range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, ok, err := s.Take(ctx, "once")
				if err != nil {
					t.Error(err)
				}
				if ok {
					winners.Add(1)
				}
			}()
		}
		wg.Wait()
		if n := winners.Load(); n != 1 {
			t.Fatalf("round %d: %d goroutines took the key, want 1", round, n)
		}
	}
}

// TestUnreachable: a dead server gives INTERNAL without connection details in the message.
func TestUnreachable(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer rdb.Close()
	s := redisttl.New(rdb, redisttl.Options{})
	_, _, err := s.Get(context.Background(), "k")
	var se *search.Error
	if !errors.As(err, &se) || se.Code() != search.CodeInternal {
		t.Fatalf("Get on a dead server: %v, want INTERNAL", err)
	}
	if got := se.Message; got == "" || strings.Contains(got, "127.0.0.1") {
		t.Errorf("message leaks the address or is empty: %q", got)
	}
}
