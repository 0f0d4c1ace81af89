package storetest

import (
	"context"
	"math"
	"testing"

	"github.com/agentfiles/agentfiles/fileio"
)

// WithoutOptional returns a Store that forwards everything to s, except that its Update
// callbacks receive a WriteTx implementing only fileio.WriteTx: the optional
// fileio.WriteChecker and fileio.ConditionalWriter of s are hidden, so a fileio.Service over
// it takes its portable path (Stat, List, Get, ProjectBytes, Put). Exercise runs the Service
// rules, the concurrency tests and the model over it as well as over s, and benchmarks can use
// it to measure what the optional interfaces save. It is safe for concurrent use if s is.
func WithoutOptional(s fileio.Store) fileio.Store { return hidingStore{Store: s, wrap: plain} }

// The WriteTx wrappers: embedding interfaces promotes only their methods, so each wrapper
// implements exactly the interfaces it names.
type (
	plainTx       struct{ fileio.WriteTx }
	checkerOnlyTx struct {
		fileio.WriteTx
		fileio.WriteChecker
	}
	conditionalOnlyTx struct {
		fileio.WriteTx
		fileio.ConditionalWriter
	}
	checkerConditionalTx struct {
		fileio.WriteTx
		fileio.WriteChecker
		fileio.ConditionalWriter
	}
)

func plain(tx fileio.WriteTx) fileio.WriteTx { return plainTx{tx} }

// checkerOnly hides the ConditionalWriter (the WriteChecker must be there).
func checkerOnly(tx fileio.WriteTx) fileio.WriteTx {
	return checkerOnlyTx{WriteTx: tx, WriteChecker: tx.(fileio.WriteChecker)}
}

// conditionalOnly hides the WriteChecker (the ConditionalWriter must be there).
func conditionalOnly(tx fileio.WriteTx) fileio.WriteTx {
	return conditionalOnlyTx{WriteTx: tx, ConditionalWriter: tx.(fileio.ConditionalWriter)}
}

// withConditional replaces the ConditionalWriter of tx by make(inner), keeping its WriteChecker.
func withConditional(make func(inner fileio.ConditionalWriter) fileio.ConditionalWriter) func(fileio.WriteTx) fileio.WriteTx {
	return func(tx fileio.WriteTx) fileio.WriteTx {
		cw := make(tx.(fileio.ConditionalWriter))
		if c, ok := tx.(fileio.WriteChecker); ok {
			return checkerConditionalTx{WriteTx: tx, WriteChecker: c, ConditionalWriter: cw}
		}
		return conditionalOnlyTx{WriteTx: tx, ConditionalWriter: cw}
	}
}

// decliningWriter never writes (its limits admit nothing), as a store whose conditions are
// stricter than the Service's would: the Service must write through its other paths.
type decliningWriter struct{ inner fileio.ConditionalWriter }

func (d decliningWriter) WriteIfAllowed(ctx context.Context, w fileio.ConditionalWrite, opts fileio.PutOptions) (fileio.ConditionalResult, error) {
	w.MaxFileBytes = -1
	return d.inner.WriteIfAllowed(ctx, w, opts)
}

// overeagerWriter ignores the exclusive flag and both limits, as a store whose conditions are
// looser than the Service's would: the Service must refuse with its own error, and the
// rollback must leave nothing behind.
type overeagerWriter struct{ inner fileio.ConditionalWriter }

func (o overeagerWriter) WriteIfAllowed(ctx context.Context, w fileio.ConditionalWrite, opts fileio.PutOptions) (fileio.ConditionalResult, error) {
	w.Exclusive, w.MaxFileBytes, w.MaxProjectBytes = false, math.MaxInt64, math.MaxInt64
	return o.inner.WriteIfAllowed(ctx, w, opts)
}

// hidingStore passes every WriteTx through wrap.
type hidingStore struct {
	fileio.Store
	wrap func(fileio.WriteTx) fileio.WriteTx
}

func (h hidingStore) Update(ctx context.Context, scope fileio.Scope, opts fileio.UpdateOptions, fn func(fileio.WriteTx) error) error {
	return h.Store.Update(ctx, scope, opts, func(tx fileio.WriteTx) error { return fn(h.wrap(tx)) })
}

// optionalSupport reports which optional interfaces the WriteTx of s implements.
func optionalSupport(t testing.TB, s fileio.Store) (checker, conditional bool) {
	t.Helper()
	_, scope := newTenant("probe")
	err := s.Update(context.Background(), scope, fileio.UpdateOptions{}, func(tx fileio.WriteTx) error {
		_, checker = tx.(fileio.WriteChecker)
		_, conditional = tx.(fileio.ConditionalWriter)
		return nil
	})
	if err != nil {
		t.Fatalf("Update with an empty callback: %v", err)
	}
	return checker, conditional
}

// exerciseOptional checks the optional interfaces against the calls they replace, and runs
// the Service over every combination of them that the store offers.
func exerciseOptional(t *testing.T, newStore func(t *testing.T) fileio.Store) {
	checker, conditional := optionalSupport(t, newStore(t))
	t.Logf("the store's WriteTx implements WriteChecker: %v, ConditionalWriter: %v", checker, conditional)
	if !checker && !conditional {
		t.Skip("the store implements no optional interface; the Service suite covered its only path")
	}
	if checker {
		t.Run("CheckWriteMatchesReadTx", func(t *testing.T) { testCheckWrite(t, newStore(t)) })
	}
	if conditional {
		t.Run("WriteIfAllowedMatchesRules", func(t *testing.T) { testWriteIfAllowed(t, newStore(t)) })
		t.Run("ConditionalAppends", func(t *testing.T) { testConditionalSequence(t, newStore(t)) })
	}
	t.Run("ServicePathsAgree", func(t *testing.T) { testServicePathsAgree(t, newStore(t), checker, conditional) })
	plainStore := func(t *testing.T) fileio.Store { return WithoutOptional(newStore(t)) }
	t.Run("WithoutOptional", func(t *testing.T) {
		t.Run("Service", func(t *testing.T) { exerciseService(t, plainStore) })
		t.Run("Concurrency", func(t *testing.T) { exerciseConcurrency(t, plainStore) })
		t.Run("Model", func(t *testing.T) { runModelSeeds(t, plainStore(t), 4) })
		t.Run("EditRenameHistory", func(t *testing.T) { exerciseEdits(t, plainStore) })
	})
}
