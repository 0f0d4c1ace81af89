package vault

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
)

// Issue 17 defect 13: 100 rapid appends to one file left 79 envelopes behind, each until its
// TTL. A newer seal for the same file now replaces the older envelope.
func TestRapidAppendsLeaveOneEnvelope(t *testing.T) {
	clock := &testClock{}
	clock.ns.Store(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	store := newMemTTLStore(clock.now)
	v := newTestVault(t, map[string]string{"1": secretOld}, store, clock, nil)
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{CredentialSealer: v})
	if err != nil {
		t.Fatal(err)
	}
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext(apiKey, "alice"))
	for i := range 100 {
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: "/log.md", Content: "line\n"}); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: "/other.md", Content: "x\n"}); err != nil {
		t.Fatal(err)
	}
	if n := store.len(); n > 2 {
		t.Errorf("%d envelopes after 100 appends to one file and one write to another, want 2", n)
	}
}

// The older reference of a superseded envelope still opens (the newer envelope holds the same
// tenant's key for the same file), and finishing with it leaves the newer envelope alone.
func TestSupersededReference(t *testing.T) {
	clock := &testClock{}
	clock.ns.Store(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	store := newMemTTLStore(clock.now)
	v := newTestVault(t, map[string]string{"1": secretOld}, store, clock, nil)
	ctx := context.Background()
	ac := agentfiles.NewAuthContext(apiKey, "alice")
	scope := fileio.Scope{Tenant: ac.APIKeyHash, Project: "p"}
	older, err := v.Seal(ctx, ac, scope, "/a.md")
	if err != nil {
		t.Fatal(err)
	}
	newer, err := v.Seal(ctx, ac, scope, "/a.md")
	if err != nil || newer == older || !validRef(newer) {
		t.Fatalf("second seal: %q %v (first %q)", newer, err, older)
	}
	if got, err := v.Open(ctx, older, scope, "/a.md"); err != nil || got != apiKey {
		t.Fatalf("open with the older reference: %q %v", got, err)
	}
	if _, err := v.Open(ctx, older, scope, "/b.md"); err == nil {
		t.Fatal("the older reference opens for another path")
	}
	if err := v.Delete(ctx, older); err != nil {
		t.Fatal(err)
	}
	if got, err := v.Open(ctx, newer, scope, "/a.md"); err != nil || got != apiKey {
		t.Fatalf("deleting the older reference removed the newer envelope: %q %v", got, err)
	}
	if err := v.Delete(ctx, newer); err != nil {
		t.Fatal(err)
	}
	if n := store.len(); n != 0 {
		t.Errorf("%d envelopes after both were used", n)
	}

	// An envelope stored by an older release, under the whole reference, still opens and is
	// deleted.
	legacy := strings.Repeat("cd", 16)
	ref, _ := v.Seal(ctx, ac, scope, "/c.md")
	data, _, _ := store.Get(ctx, v.slotKey(ref))
	_ = store.Delete(ctx, v.slotKey(ref))
	_ = store.Put(ctx, DefaultPrefix+":"+legacy, data, time.Minute)
	if got, err := v.Open(ctx, legacy, scope, "/c.md"); err != nil || got != apiKey {
		t.Fatalf("open of an envelope under a legacy reference: %q %v", got, err)
	}
	if err := v.Delete(ctx, legacy); err != nil || store.len() != 0 {
		t.Fatalf("delete of a legacy envelope: %v, %d left", err, store.len())
	}
}
