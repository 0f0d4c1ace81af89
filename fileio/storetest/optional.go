package storetest

import (
	"context"
	"math"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

// WithoutOptional returns a Store that forwards everything to s, except that its Update
// callbacks receive a WriteTx implementing only driver.WriteTx: the optional
// driver.WriteChecker and driver.ConditionalWriter of s are hidden, so a fileio.Service over
// it takes its portable path (Stat, List, Get, ProjectBytes, Put). Exercise runs the Service
// rules, the concurrency tests and the model over it as well as over s, and benchmarks can use
// it to measure what the optional interfaces save. It is safe for concurrent use if s is.
func WithoutOptional(s driver.Store) driver.Store { return hidingStore{Store: s, wrap: plain} }

// The WriteTx wrappers: embedding interfaces promotes only their methods, so each wrapper
// implements exactly the interfaces it names.
type (
	plainTx       struct{ driver.WriteTx }
	checkerOnlyTx struct {
		driver.WriteTx
		driver.WriteChecker
	}
	conditionalOnlyTx struct {
		driver.WriteTx
		driver.ConditionalWriter
	}
	checkerConditionalTx struct {
		driver.WriteTx
		driver.WriteChecker
		driver.ConditionalWriter
	}
)

func plain(tx driver.WriteTx) driver.WriteTx { return plainTx{tx} }

// checkerOnly hides the ConditionalWriter (the WriteChecker must be there).
func checkerOnly(tx driver.WriteTx) driver.WriteTx {
	return checkerOnlyTx{WriteTx: tx, WriteChecker: tx.(driver.WriteChecker)}
}

// conditionalOnly hides the WriteChecker (the ConditionalWriter must be there).
func conditionalOnly(tx driver.WriteTx) driver.WriteTx {
	return conditionalOnlyTx{WriteTx: tx, ConditionalWriter: tx.(driver.ConditionalWriter)}
}

// withConditional replaces the ConditionalWriter of tx by make(inner), keeping its WriteChecker.
func withConditional(make func(inner driver.ConditionalWriter) driver.ConditionalWriter) func(driver.WriteTx) driver.WriteTx {
	return func(tx driver.WriteTx) driver.WriteTx {
		cw := make(tx.(driver.ConditionalWriter))
		if c, ok := tx.(driver.WriteChecker); ok {
			return checkerConditionalTx{WriteTx: tx, WriteChecker: c, ConditionalWriter: cw}
		}
		return conditionalOnlyTx{WriteTx: tx, ConditionalWriter: cw}
	}
}

// decliningWriter never writes (its limits admit nothing), as a store whose conditions are
// stricter than the Service's would: the Service must write through its other paths.
type decliningWriter struct{ inner driver.ConditionalWriter }

func (d decliningWriter) WriteIfAllowed(ctx context.Context, w driver.ConditionalWrite, opts driver.PutOptions) (driver.ConditionalResult, error) {
	w.MaxFileBytes = -1
	return d.inner.WriteIfAllowed(ctx, w, opts)
}

// overeagerWriter ignores the exclusive flag and both limits, as a store whose conditions are
// looser than the Service's would: the Service must refuse with its own error, and the
// rollback must leave nothing behind.
type overeagerWriter struct{ inner driver.ConditionalWriter }

func (o overeagerWriter) WriteIfAllowed(ctx context.Context, w driver.ConditionalWrite, opts driver.PutOptions) (driver.ConditionalResult, error) {
	w.Exclusive, w.MaxFileBytes, w.MaxProjectBytes = false, math.MaxInt64, math.MaxInt64
	return o.inner.WriteIfAllowed(ctx, w, opts)
}

// hidingStore passes every WriteTx through wrap.
type hidingStore struct {
	driver.Store
	wrap func(driver.WriteTx) driver.WriteTx
}

func (h hidingStore) Update(ctx context.Context, scope driver.Scope, opts driver.UpdateOptions, fn func(driver.WriteTx) error) error {
	return h.Store.Update(ctx, scope, opts, func(tx driver.WriteTx) error { return fn(h.wrap(tx)) })
}

// optionalSupport reports which optional interfaces the WriteTx of s implements.
func optionalSupport(t testing.TB, s driver.Store) (checker, conditional bool) {
	t.Helper()
	_, scope := newTenant("probe")
	err := s.Update(context.Background(), scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		_, checker = tx.(driver.WriteChecker)
		_, conditional = tx.(driver.ConditionalWriter)
		return nil
	})
	if err != nil {
		t.Fatalf("Update with an empty callback: %v", err)
	}
	return checker, conditional
}

// exerciseOptional checks the optional interfaces against the calls they replace, and runs
// the Service over every combination of them that the store offers. Over WithoutOptional it
// runs again only what those interfaces change: the Service's writes (not its reads, whose
// fixtures the writes' paths put there), the concurrency tests, the model and the edits.
func exerciseOptional(t *testing.T, newStore func(t *testing.T) driver.Store) {
	checker, conditional := optionalSupport(t, newStore(t))
	t.Logf("the store's WriteTx implements WriteChecker: %v, ConditionalWriter: %v", checker, conditional)
	if !checker && !conditional {
		t.Log("the store implements no optional interface; the Service suite covered its only path: nothing to check")
		return
	}
	if checker {
		t.Run("CheckWriteMatchesReadTx", func(t *testing.T) { testCheckWrite(t, newStore(t)) })
	}
	if conditional {
		t.Run("WriteIfAllowedMatchesRules", func(t *testing.T) { testWriteIfAllowed(t, newStore(t)) })
		t.Run("ConditionalAppends", func(t *testing.T) { testConditionalSequence(t, newStore(t)) })
	}
	t.Run("ServicePathsAgree", func(t *testing.T) { testServicePathsAgree(t, newStore(t), checker, conditional) })
	plainStore := func(t *testing.T) driver.Store { return WithoutOptional(newStore(t)) }
	t.Run("WithoutOptional", func(t *testing.T) {
		t.Run("Service", func(t *testing.T) { exerciseServiceWrites(t, plainStore) })
		t.Run("Concurrency", func(t *testing.T) { exerciseConcurrency(t, plainStore) })
		t.Run("Model", func(t *testing.T) { runModelSeeds(t, plainStore(t), 4) })
		t.Run("EditRenameHistory", func(t *testing.T) { exerciseEdits(t, plainStore) })
	})
}
