package pgstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
)

// TestLockTimeout: while one transaction holds a project's lock, a second writer to that project
// fails with RESOURCE_BUSY after the lock timeout, writers to other projects (and readers of the
// locked one) proceed, and the holder's commit is unaffected.
func TestLockTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	s, _ := newStore(t, pgstore.Options{})
	ctx := context.Background()
	put(t, s, testScope, "/before", "committed")

	holding, release := make(chan struct{}), make(chan struct{})
	holderDone := make(chan error, 1)
	go func() {
		holderDone <- s.Update(ctx, testScope, fileio.UpdateOptions{}, func(tx fileio.WriteTx) error {
			if _, err := tx.Put(ctx, "/held", []byte("in progress"), fileio.PutOptions{}); err != nil {
				return err
			}
			close(holding)
			<-release
			return nil
		})
	}()
	select {
	case <-holding:
	case err := <-holderDone:
		t.Fatalf("holder failed: %v", err)
	}

	start := time.Now()
	err := s.Update(ctx, testScope, fileio.UpdateOptions{LockTimeout: timeout}, func(tx fileio.WriteTx) error {
		_, err := tx.Put(ctx, "/second", []byte("x"), fileio.PutOptions{})
		return err
	})
	waited := time.Since(start)
	if !errors.Is(err, agentfiles.ErrResourceBusy) || !strings.Contains(err.Error(), "for more than 300ms") {
		t.Fatalf("second writer: err = %v, want RESOURCE_BUSY naming the lock timeout", err)
	}
	if waited < timeout {
		t.Errorf("second writer gave up after %v, before the lock timeout %v", waited, timeout)
	}
	t.Logf("second writer got RESOURCE_BUSY after %v (lock timeout %v): %v", waited, timeout, err)

	other := fileio.Scope{Tenant: testScope.Tenant, Project: "other"}
	put(t, s, other, "/free", "not blocked")
	if _, err := get(t, s, testScope, "/held"); !errors.Is(err, agentfiles.ErrNotFound) {
		t.Errorf("reader saw the holder's uncommitted file: err = %v", err)
	}
	if f, err := get(t, s, testScope, "/before"); err != nil || string(f.Content) != "committed" {
		t.Errorf("reader of the locked project: %q, %v", f.Content, err)
	}

	close(release)
	if err := <-holderDone; err != nil {
		t.Fatalf("holder commit: %v", err)
	}
	if _, err := get(t, s, testScope, "/held"); err != nil {
		t.Errorf("holder's file after commit: %v", err)
	}
	if _, err := get(t, s, testScope, "/second"); !errors.Is(err, agentfiles.ErrNotFound) {
		t.Errorf("the timed-out write left a file: err = %v", err)
	}
	// The lock is free again.
	put(t, s, testScope, "/after", "ok")
}

// TestUpdatesOfOneProjectAreSerialised: read-modify-write counters from many goroutines on
// separate connections never lose an update.
func TestUpdatesOfOneProjectAreSerialised(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	ctx := context.Background()
	const goroutines, each = 16, 10
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		go func() {
			for i := 0; i < each; i++ {
				err := s.Update(ctx, testScope, fileio.UpdateOptions{LockTimeout: time.Minute}, func(tx fileio.WriteTx) error {
					f, err := tx.Get(ctx, "/counter")
					if err != nil && !errors.Is(err, agentfiles.ErrNotFound) {
						return err
					}
					_, err = tx.Put(ctx, "/counter", append(f.Content, 'x'), fileio.PutOptions{})
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < goroutines; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	f, err := get(t, s, testScope, "/counter")
	if err != nil || len(f.Content) != goroutines*each {
		t.Fatalf("counter has %d increments (%v), want %d", len(f.Content), err, goroutines*each)
	}
}
