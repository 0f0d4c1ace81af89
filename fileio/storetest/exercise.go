package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// Exercise runs the acceptance suite against stores made by newStore, which must return an
// empty store on every call. See the package documentation for what it covers.
func Exercise(t *testing.T, newStore func(t *testing.T) driver.Store) {
	t.Run("Service", func(t *testing.T) { exerciseService(t, newStore) })
	t.Run("Store", func(t *testing.T) { runOnFreshStores(t, newStore, storeContract) })
	t.Run("Outbox", func(t *testing.T) { runOnFreshStores(t, newStore, outboxContract) })
	t.Run("Concurrency", func(t *testing.T) { exerciseConcurrency(t, newStore) })
	t.Run("CrossTenant", func(t *testing.T) { exerciseCrossTenant(t, newStore) })
	t.Run("OptionalInterfaces", func(t *testing.T) { exerciseOptional(t, newStore) })
	t.Run("OptionalReads", func(t *testing.T) { runOnFreshStores(t, newStore, readExtensions) })
	t.Run("EditRenameHistory", func(t *testing.T) { exerciseEdits(t, newStore) })
	t.Run("Budgets", func(t *testing.T) { exerciseBudgets(t, newStore) })
	t.Run("GrepGlob", func(t *testing.T) { exerciseGrep(t, newStore) })
	t.Run("Patch", func(t *testing.T) { exercisePatch(t, newStore) })
	t.Run("DuplicatePaths", func(t *testing.T) { exerciseDuplicatePaths(t, newStore) })
	t.Run("Quotas", func(t *testing.T) { exerciseQuotas(t, newStore) })
	t.Run("Archives", func(t *testing.T) { testArchives(t, newStore) })
	t.Run("Shell", func(t *testing.T) { ExerciseShell(t, newStore) })
	t.Run("Model", func(t *testing.T) { runModelSeeds(t, newStore(t), 8) })
}

// ExerciseGrep runs the grep and glob part of Exercise alone, for a store to check its search
// in more than one state (pgstore: with its files indexed and without).
func ExerciseGrep(t *testing.T, newStore func(t *testing.T) driver.Store) { exerciseGrep(t, newStore) }

// ExerciseGrepStore runs the grep and glob suite of ExerciseGrep on the stores as they are
// only, their optional interfaces (the content index) in use: for running it again under other
// store settings, such as a database collation.
func ExerciseGrepStore(t *testing.T, newStore func(t *testing.T) driver.Store) {
	grepSuite(t, newStore)
}

// env is one store with a Service over it and helpers bound to a test.
type env struct {
	t     *testing.T
	store driver.Store
	svc   *fileio.Service
}

var tenantSeq atomic.Int64

// newTenant returns a context authenticated as a fresh tenant, and its scope for project.
func newTenant(project string) (context.Context, driver.Scope) {
	ac := agentfiles.NewAuthContext(fmt.Sprintf("storetest-key-%d-%d", time.Now().UnixNano(), tenantSeq.Add(1)), "storetest")
	return agentfiles.WithAuth(context.Background(), ac), driver.Scope{Tenant: ac.TenantID(), Project: project}
}

// testConfig is DefaultConfig without a rate limit (tests make many calls quickly).
func testConfig() fileio.Config {
	cfg := fileio.DefaultConfig()
	cfg.RateLimitPerSecond = 0
	return cfg
}

// NewService returns a Service over store with fileio.DefaultConfig but no rate limit (a test
// makes many calls quickly), changed by each of mutate in turn. It fails t when
// fileio.NewService does.
func NewService(t testing.TB, store driver.Store, mutate ...func(*fileio.Config)) *fileio.Service {
	t.Helper()
	cfg := testConfig()
	for _, m := range mutate {
		m(&cfg)
	}
	svc, err := fileio.NewService(store, fileio.Options{Config: cfg})
	if err != nil {
		t.Fatalf("NewService: %v", err)
	}
	return svc
}

func newEnv(t *testing.T, newStore func(t *testing.T) driver.Store, mutate ...func(*fileio.Config)) *env {
	t.Helper()
	store := newStore(t)
	return &env{t: t, store: store, svc: NewService(t, store, mutate...)}
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
	res, err := e.svc.Read(ctx, fileio.ReadRequest{Project: project, Path: path, OffsetBytes: 0, LengthBytes: new(int64(fileio.ReadToEOF))})
	if err != nil {
		e.t.Fatalf("read %s: %v", path, err)
	}
	return res.Content
}

// noError is the code of a nil error (agentfiles.ErrorCode(nil)): a wanted success.
var noError agentfiles.Code

// describe names a wanted code in messages: noError would print as INTERNAL.
func describe(code agentfiles.Code) string {
	if code == noError {
		return "no error"
	}
	return code.String()
}

// wantCode fails the test unless err carries code (noError: err is nil), by
// agentfiles.ErrorCode and by errors.Is against an *agentfiles.Error with that code.
func wantCode(t testing.TB, what string, err error, code agentfiles.Code) {
	t.Helper()
	if got := agentfiles.ErrorCode(err); got != code {
		t.Errorf("%s: error %v, want %s", what, err, describe(code))
		return
	}
	if code != noError && !errors.Is(err, agentfiles.NewError(code, "", "")) {
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
func pending(t testing.TB, s driver.Store) int {
	t.Helper()
	n, err := s.PendingJobs(context.Background())
	if err != nil {
		t.Fatalf("PendingJobs: %v", err)
	}
	return n
}

// CompleteJobs claims and completes every pending index job of s, as an Indexer that has
// indexed everything would. It fails t when a claim or a completion fails.
func CompleteJobs(t testing.TB, s driver.Store) {
	t.Helper()
	ctx := context.Background()
	for {
		jobs, err := s.ClaimJobs(ctx, 1000, time.Minute)
		if err != nil {
			t.Fatalf("ClaimJobs: %v", err)
		}
		if len(jobs) == 0 {
			return
		}
		for _, j := range jobs {
			if err := s.CompleteJob(ctx, j); err != nil {
				t.Fatalf("CompleteJob: %v", err)
			}
		}
	}
}

// storeTest is one test of a Store contract, run on a fresh store.
type storeTest struct {
	name string
	run  func(t *testing.T, s driver.Store)
}

// runOnFreshStores runs each test as a subtest on a store of its own.
func runOnFreshStores(t *testing.T, newStore func(t *testing.T) driver.Store, tests []storeTest) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newStore(t)) })
	}
}

// inParallel runs fn(0) … fn(n-1) in n goroutines and waits for all of them.
func inParallel(n int, fn func(g int)) {
	var wg sync.WaitGroup
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(g)
		}()
	}
	wg.Wait()
}

// runModelSeeds runs RunModel on store for seeds 1..n.
func runModelSeeds(t *testing.T, store driver.Store, n int64) {
	for seed := int64(1); seed <= n; seed++ {
		RunModel(t, store, seed, 300)
	}
}

// receive returns the value sent on ch, failing the test if none comes within 30 seconds
// (a bound for a hung store, not a timing assertion).
func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: nothing within 30s", what)
		panic("unreachable")
	}
}

// heldLock is an Update of one project that stays open until release.
type heldLock struct {
	release chan struct{}
	done    chan error
}

// holdLock starts an Update of scope that runs fill and then holds the project's write lock
// until Release; it returns once the transaction is open.
func holdLock(t testing.TB, s driver.Store, scope driver.Scope, fill func(tx driver.WriteTx) error) *heldLock {
	t.Helper()
	h := &heldLock{release: make(chan struct{}), done: make(chan error, 1)}
	inside := make(chan struct{})
	go func() {
		h.done <- s.Update(context.Background(), scope, driver.UpdateOptions{LockTimeout: time.Minute}, func(tx driver.WriteTx) error {
			if fill != nil {
				if err := fill(tx); err != nil {
					return err
				}
			}
			close(inside)
			<-h.release
			return nil
		})
	}()
	select {
	case <-inside:
	case err := <-h.done:
		t.Fatalf("the lock-holding Update ended early: %v", err)
	}
	return h
}

// Release lets the held Update commit and fails the test if it does not.
func (h *heldLock) Release(t testing.TB) {
	t.Helper()
	close(h.release)
	if err := receive(t, h.done, "the lock-holding Update to commit"); err != nil {
		t.Fatalf("the lock-holding Update: %v", err)
	}
}
