package redistest_test

import (
	"context"
	"os"
	"testing"

	"github.com/agentfiles/agentfiles/internal/redistest"
	"github.com/redis/go-redis/v9"
)

func TestServersAreIndependent(t *testing.T) {
	ctx := context.Background()
	a := redis.NewClient(&redis.Options{Addr: redistest.New(t)})
	defer a.Close()
	b := redis.NewClient(&redis.Options{Addr: redistest.New(t)})
	defer b.Close()
	if err := a.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	got, err := a.Get(ctx, "k").Result()
	if err != nil || got != "v" {
		t.Fatalf("GET k on server A = %q, %v; want \"v\"", got, err)
	}
	if err := b.Get(ctx, "k").Err(); err != redis.Nil {
		t.Fatalf("GET k on server B: err = %v, want redis.Nil (servers must not share data)", err)
	}
	if cfg, err := a.ConfigGet(ctx, "appendonly").Result(); err != nil || cfg["appendonly"] != "no" {
		t.Fatalf("appendonly = %v, %v; want no", cfg, err)
	}
}

func TestCloseStopsServer(t *testing.T) {
	ctx := context.Background()
	srv, err := redistest.Start(ctx)
	if err != nil {
		if os.Getenv(redistest.EnvRequireServices) == "1" {
			t.Fatal(err)
		}
		t.Skipf("redis-server unavailable: %v", err)
	}
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
	defer c.Close()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	srv.Close() // harmless twice
	if err := c.Ping(ctx).Err(); err == nil {
		t.Fatal("PING succeeded after Close")
	}
}
