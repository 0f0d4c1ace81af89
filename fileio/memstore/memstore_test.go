package memstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
)

func TestStore(t *testing.T) {
	storetest.Exercise(t, func(t *testing.T) fileio.Store { return memstore.New() })
}

func TestModelSeeds(t *testing.T) {
	store := memstore.New()
	for seed := int64(100); seed < 120; seed++ {
		storetest.RunModel(t, store, seed, 400)
	}
}

// FuzzModel feeds random operation sequences to the model harness; the seed corpus runs in
// every go test.
func FuzzModel(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x00\x00\x03\x02\x00\x00\x00\x00\x01\x00\x03\x00\x05\x00\x00\x00"))
	for i := 0; i < 4; i++ {
		seed := make([]byte, 8*32)
		for j := range seed {
			seed[j] = byte(j*31 + i*7)
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 8*200 {
			data = data[:8*200]
		}
		storetest.RunModelOps(t, memstore.New(), data)
	})
}

func TestLockTimeoutIsResourceBusy(t *testing.T) {
	store := memstore.New(memstore.WithLockTimeout(20 * time.Millisecond))
	scope := fileio.Scope{Tenant: "t", Project: "p"}
	inside, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- store.Update(context.Background(), scope, func(fileio.WriteTx) error { close(inside); <-release; return nil })
	}()
	<-inside
	err := store.Update(context.Background(), scope, func(fileio.WriteTx) error { return nil })
	if fileio.ErrorCode(err) != fileio.CodeResourceBusy {
		t.Errorf("Update while the lock is held = %v, want RESOURCE_BUSY", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := store.Update(context.Background(), scope, func(fileio.WriteTx) error { return nil }); err != nil {
		t.Errorf("Update after release: %v", err)
	}
}

func TestLastJobError(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	scope := fileio.Scope{Tenant: "t", Project: "p"}
	store.Update(ctx, scope, func(tx fileio.WriteTx) error {
		_, err := tx.Put(ctx, "/f", []byte("x"), fileio.PutOptions{})
		return err
	})
	jobs, _ := store.ClaimJobs(ctx, 1, time.Minute)
	store.RetryJob(ctx, jobs[0], time.Now(), "embedder: 503")
	if msg, ok := store.LastJobError(scope, "/f"); !ok || msg != "embedder: 503" {
		t.Errorf("LastJobError = %q, %v", msg, ok)
	}
}
