package storetest

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles/fileio"
)

// WithoutOptional returns a Store that forwards everything to s, except that its Update
// callbacks receive a WriteTx implementing only fileio.WriteTx: the optional
// fileio.WriteChecker and fileio.Appender of s are hidden, so a fileio.Service over it takes
// its portable path (Stat, List, Get, ProjectBytes, Put). Exercise runs the Service rules, the
// concurrency tests and the model over it as well as over s, and benchmarks can use it to
// measure what the optional interfaces save. It is safe for concurrent use if s is.
func WithoutOptional(s fileio.Store) fileio.Store { return hidingStore{Store: s, wrap: plain} }

// The WriteTx wrappers: embedding interfaces promotes only their methods, so each wrapper
// implements exactly the interfaces it names.
type (
	plainTx       struct{ fileio.WriteTx }
	checkerOnlyTx struct {
		fileio.WriteTx
		fileio.WriteChecker
	}
	appenderOnlyTx struct {
		fileio.WriteTx
		fileio.Appender
	}
)

func plain(tx fileio.WriteTx) fileio.WriteTx { return plainTx{tx} }

// checkerOnly hides the Appender (the WriteChecker must be there).
func checkerOnly(tx fileio.WriteTx) fileio.WriteTx {
	return checkerOnlyTx{WriteTx: tx, WriteChecker: tx.(fileio.WriteChecker)}
}

// appenderOnly hides the WriteChecker (the Appender must be there).
func appenderOnly(tx fileio.WriteTx) fileio.WriteTx {
	return appenderOnlyTx{WriteTx: tx, Appender: tx.(fileio.Appender)}
}

// hidingStore passes every WriteTx through wrap.
type hidingStore struct {
	fileio.Store
	wrap func(fileio.WriteTx) fileio.WriteTx
}

func (h hidingStore) Update(ctx context.Context, scope fileio.Scope, fn func(fileio.WriteTx) error) error {
	return h.Store.Update(ctx, scope, func(tx fileio.WriteTx) error { return fn(h.wrap(tx)) })
}

// optionalSupport reports which optional interfaces the WriteTx of s implements.
func optionalSupport(t testing.TB, s fileio.Store) (checker, appender bool) {
	t.Helper()
	_, scope := newTenant("probe")
	err := s.Update(context.Background(), scope, func(tx fileio.WriteTx) error {
		_, checker = tx.(fileio.WriteChecker)
		_, appender = tx.(fileio.Appender)
		return nil
	})
	if err != nil {
		t.Fatalf("Update with an empty callback: %v", err)
	}
	return checker, appender
}

// exerciseOptional checks the optional interfaces against the calls they replace, and runs
// the Service over every combination of them that the store offers.
func exerciseOptional(t *testing.T, newStore func(t *testing.T) fileio.Store) {
	checker, appender := optionalSupport(t, newStore(t))
	t.Logf("the store's WriteTx implements WriteChecker: %v, Appender: %v", checker, appender)
	if !checker && !appender {
		t.Skip("the store implements no optional interface; the Service suite covered its only path")
	}
	if checker {
		t.Run("CheckWriteMatchesReadTx", func(t *testing.T) { testCheckWrite(t, newStore(t)) })
	}
	if appender {
		t.Run("AppendIsPutOfConcatenation", func(t *testing.T) { testAppend(t, newStore(t)) })
	}
	t.Run("ServicePathsAgree", func(t *testing.T) { testServicePathsAgree(t, newStore(t), checker, appender) })
	plainStore := func(t *testing.T) fileio.Store { return WithoutOptional(newStore(t)) }
	t.Run("WithoutOptional", func(t *testing.T) {
		t.Run("Service", func(t *testing.T) { exerciseService(t, plainStore) })
		t.Run("Concurrency", func(t *testing.T) { exerciseConcurrency(t, plainStore) })
		t.Run("Model", func(t *testing.T) {
			store := plainStore(t)
			for seed := int64(1); seed <= 4; seed++ {
				RunModel(t, store, seed, 300)
			}
		})
	})
}
