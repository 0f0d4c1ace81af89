package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
)

// Exercise runs the acceptance suite against stores made by newStore, which must return an
// empty store on every call. See the package documentation for what it covers.
func Exercise(t *testing.T, newStore func(t *testing.T) fileio.Store) {
	t.Run("Service", func(t *testing.T) { exerciseService(t, newStore) })
	t.Run("Store", func(t *testing.T) { exerciseStore(t, newStore) })
	t.Run("Outbox", func(t *testing.T) { exerciseOutbox(t, newStore) })
	t.Run("Concurrency", func(t *testing.T) { exerciseConcurrency(t, newStore) })
	t.Run("CrossTenant", func(t *testing.T) { exerciseCrossTenant(t, newStore) })
	t.Run("OptionalInterfaces", func(t *testing.T) { exerciseOptional(t, newStore) })
	t.Run("Model", func(t *testing.T) {
		store := newStore(t)
		for seed := int64(1); seed <= 8; seed++ {
			RunModel(t, store, seed, 300)
		}
	})
}

// env is one store with a Service over it and helpers bound to a test.
type env struct {
	t     *testing.T
	store fileio.Store
	svc   *fileio.Service
}

var tenantSeq atomic.Int64

// newTenant returns a context authenticated as a fresh tenant, and its scope for project.
func newTenant(project string) (context.Context, fileio.Scope) {
	ac := fileio.NewAuthContext(fmt.Sprintf("storetest-key-%d-%d", time.Now().UnixNano(), tenantSeq.Add(1)), "storetest")
	return fileio.WithAuth(context.Background(), ac), fileio.Scope{Tenant: ac.APIKeyHash, Project: project}
}

// testConfig is DefaultConfig without a rate limit (tests make many calls quickly).
func testConfig() fileio.Config {
	cfg := fileio.DefaultConfig()
	cfg.RateLimitPerSecond = 0
	return cfg
}

func newEnv(t *testing.T, newStore func(t *testing.T) fileio.Store, mutate ...func(*fileio.Config)) *env {
	t.Helper()
	store := newStore(t)
	cfg := testConfig()
	for _, m := range mutate {
		m(&cfg)
	}
	svc, err := fileio.NewService(store, cfg)
	if err != nil {
		t.Fatalf("NewService: %v", err)
	}
	return &env{t: t, store: store, svc: svc}
}

func (e *env) write(ctx context.Context, project, path, content string) fileio.WriteResult {
	e.t.Helper()
	res, err := e.svc.Write(ctx, fileio.WriteRequest{Project: project, Path: path, Content: content})
	if err != nil {
		e.t.Fatalf("write %s: %v", path, err)
	}
	return res
}

func (e *env) read(ctx context.Context, project, path string) string {
	e.t.Helper()
	res, err := e.svc.Read(ctx, project, path, 0, fileio.ReadToEOF)
	if err != nil {
		e.t.Fatalf("read %s: %v", path, err)
	}
	return res.Content
}

// wantCode fails the test unless err carries code (via errors.Is on a fresh *Error too).
func wantCode(t testing.TB, what string, err error, code string) {
	t.Helper()
	if got := fileio.ErrorCode(err); got != code {
		t.Errorf("%s: error %v (code %q), want code %q", what, err, got, code)
		return
	}
	if code != "" && !errors.Is(err, fileio.NewError(code, "", "")) {
		t.Errorf("%s: errors.Is does not match code %s", what, code)
	}
}

// wantMessage fails unless err's message contains every fragment.
func wantMessage(t testing.TB, what string, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one mentioning %q", what, fragments)
		return
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("%s: error %q does not mention %q", what, err, f)
		}
	}
}

// pending counts outbox jobs, failing the test on error.
func pending(t testing.TB, s fileio.Store) int {
	t.Helper()
	n, err := s.PendingJobs(context.Background())
	if err != nil {
		t.Fatalf("PendingJobs: %v", err)
	}
	return n
}

// eventually polls cond until it holds or the deadline passes; no fixed sleeps.
func eventually(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true after %s", what, timeout)
		}
		time.Sleep(5 * time.Millisecond) // poll interval, not a wait for an event
	}
}
