package redisttl_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/agentfiles/agentfiles/internal/redistest"
	"github.com/agentfiles/agentfiles/search/vault"
	"github.com/agentfiles/agentfiles/search/vault/redisttl"
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

// On Redis, 100 rapid seals for one file (what 100 appends do) left 79
// envelopes in Redis until their TTL once; a newer seal now replaces the older envelope, and
// finishing with a superseded reference leaves the newer envelope alone.
func TestRapidSealsLeaveOneEnvelope(t *testing.T) {
	s, rdb := newStore(t, redisttl.Options{KeyPrefix: "app:"})
	v, err := vault.New(map[string]string{"1": "test-kek-secret-0123456789abcdef"}, vault.Options{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ac := agentfiles.NewAuthContext("caller-key-0123456789", "alice")
	scope := driver.Scope{Tenant: ac.APIKeyHash, Project: "p"}
	var refs []string
	for range 100 {
		ref, err := v.Seal(ctx, ac, scope, "/log.md")
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, ref)
	}
	keys, err := rdb.Keys(ctx, "app:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) > 1 {
		t.Fatalf("%d envelopes in Redis after 100 seals for one file: %v", len(keys), keys)
	}
	if err := v.Delete(ctx, refs[0]); err != nil {
		t.Fatal(err)
	}
	if got, err := v.Open(ctx, refs[99], scope, "/log.md"); err != nil || got != "caller-key-0123456789" {
		t.Fatalf("the newest envelope after deleting a superseded reference: %q %v", got, err)
	}
	if err := v.Delete(ctx, refs[99]); err != nil {
		t.Fatal(err)
	}
	if n, _ := rdb.DBSize(ctx).Result(); n != 0 {
		t.Errorf("%d keys left after the newest envelope was used", n)
	}
}

func TestDeleteIfEqual(t *testing.T) {
	s, rdb := newStore(t, redisttl.Options{})
	ctx := context.Background()
	if err := s.Put(ctx, "k", []byte("v2"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteIfEqual(ctx, "k", []byte("v1")); err != nil {
		t.Fatal(err)
	}
	if n, _ := rdb.Exists(ctx, "k").Result(); n != 1 {
		t.Fatal("DeleteIfEqual deleted another value")
	}
	if err := s.DeleteIfEqual(ctx, "k", []byte("v2")); err != nil {
		t.Fatal(err)
	}
	if n, _ := rdb.Exists(ctx, "k").Result(); n != 0 {
		t.Fatal("DeleteIfEqual kept the value it was given")
	}
	if err := s.DeleteIfEqual(ctx, "missing", []byte("v")); err != nil {
		t.Fatal(err)
	}
}
