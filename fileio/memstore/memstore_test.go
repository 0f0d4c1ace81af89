package memstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/testsize"
)

func TestStore(t *testing.T) {
	storetest.Exercise(t, func(t *testing.T) driver.Store { return memstore.New(memstore.Options{}) })
}

// TestArchiveRoundTrip imports this repository (100 of its files by default, 400 with
// AGENTFILES_FULL=1, and names with spaces and accents) and exports it again in every format.
func TestArchiveRoundTrip(t *testing.T) {
	storetest.ExerciseArchiveTree(t, memstore.New(memstore.Options{}), "../..", testsize.Count(t, 400, 100))
}

func TestModelSeeds(t *testing.T) {
	store := memstore.New(memstore.Options{})
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
		storetest.RunModelOps(t, memstore.New(memstore.Options{}), data)
	})
}

func TestLastJobError(t *testing.T) {
	ctx := context.Background()
	store := memstore.New(memstore.Options{})
	scope := driver.Scope{Tenant: "t", Project: "p"}
	store.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		_, err := tx.Put(ctx, "/f", []byte("x"), driver.PutOptions{})
		return err
	})
	jobs, _ := store.ClaimJobs(ctx, 1, time.Minute)
	store.RetryJob(ctx, jobs[0], time.Now(), "embedder: 503")
	if msg, ok := store.LastJobError(scope, "/f"); !ok || msg != "embedder: 503" {
		t.Errorf("LastJobError = %q, %v", msg, ok)
	}
}

// TestOptionsNow: file and job times come from Options.Now.
func TestOptionsNow(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	store := memstore.New(memstore.Options{Now: func() time.Time { return at }})
	var info driver.FileInfo
	err := store.Update(ctx, driver.Scope{Tenant: "t", Project: "p"}, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		var err error
		info, err = tx.Put(ctx, "/f", []byte("x"), driver.PutOptions{})
		return err
	})
	if err != nil || !info.CreatedAt.Equal(at) || !info.UpdatedAt.Equal(at) {
		t.Fatalf("Put = %+v, %v; want both times %v", info, err, at)
	}
	jobs, err := store.ClaimJobs(ctx, 1, time.Minute)
	if err != nil || len(jobs) != 1 || !jobs[0].EnqueuedAt.Equal(at) {
		t.Errorf("jobs = %+v, %v; want one enqueued at %v", jobs, err, at)
	}
}
