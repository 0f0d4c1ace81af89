package vault

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/google/go-cmp/cmp"
)

type testClock struct{ ns atomic.Int64 }

func (c *testClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *testClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// newTestClock returns a clock stopped at the start of 2025.
func newTestClock() *testClock {
	c := &testClock{}
	c.ns.Store(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

const (
	secretOld = "old-kek-secret-0123456789abcdef"
	secretNew = "new-kek-secret-fedcba9876543210"
	apiKey    = "sk-live-THIS-MUST-NEVER-BE-LOGGED"
)

func newTestVault(t *testing.T, keks map[string]string, store TTLStore, clock *testClock, log *slog.Logger) *Vault {
	t.Helper()
	v, err := New(keks, Options{Store: store, Now: clock.now, TTL: time.Minute, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVaultSealOpenAndRejections(t *testing.T) {
	clock := newTestClock()
	store := newMemTTLStore(clock.now)
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	v := newTestVault(t, map[string]string{"1": secretOld, "2": secretNew}, store, clock, logger)
	if v.sealKEK != "2" {
		t.Fatalf("sealing KEK %q, want the newest id 2", v.sealKEK)
	}
	ctx := context.Background()
	ac := agentfiles.NewAuthContext(apiKey, "alice")
	scope := driver.Scope{Tenant: ac.APIKeyHash, Project: "p"}
	seal := func() string {
		ref, err := v.Seal(ctx, ac, scope, "/a.md")
		if err != nil || !validRef(ref) {
			t.Fatalf("seal: %q %v", ref, err)
		}
		return ref
	}

	ref := seal()
	got, err := v.Open(ctx, ref, scope, "/a.md")
	if err != nil || got != apiKey {
		t.Fatalf("open: %q %v", got, err)
	}
	raw, _, _ := store.Get(ctx, v.slotKey(ref))
	if bytes.Contains(raw, []byte(apiKey)) {
		t.Fatal("the stored envelope contains the plaintext key")
	}

	tamper := func(ref string, edit func(*envelope)) {
		raw, _, _ := store.Get(ctx, v.slotKey(ref))
		var env envelope
		if err := json.Unmarshal(raw, &env); err != nil {
			t.Fatal(err)
		}
		edit(&env)
		b, _ := json.Marshal(env)
		_ = store.Put(ctx, v.slotKey(ref), b, time.Minute)
	}
	flip := func(h string) string {
		b, _ := hex.DecodeString(h)
		b[len(b)-1] ^= 1
		return hex.EncodeToString(b)
	}
	tests := []struct {
		name string
		prep func() (ref string, scope driver.Scope, path string)
	}{
		{"tampered ciphertext", func() (string, driver.Scope, string) {
			r := seal()
			tamper(r, func(e *envelope) { e.Ciphertext = flip(e.Ciphertext) })
			return r, scope, "/a.md"
		}},
		{"tampered wrapped data key", func() (string, driver.Scope, string) {
			r := seal()
			tamper(r, func(e *envelope) { e.WrappedDEK = flip(e.WrappedDEK) })
			return r, scope, "/a.md"
		}},
		{"extended expiry", func() (string, driver.Scope, string) {
			r := seal()
			tamper(r, func(e *envelope) { e.ExpiresAt = e.ExpiresAt.Add(time.Hour); e.AAD = "" })
			return r, scope, "/a.md"
		}},
		{"wrong path", func() (string, driver.Scope, string) { return seal(), scope, "/b.md" }},
		{"wrong project", func() (string, driver.Scope, string) {
			return seal(), driver.Scope{Tenant: scope.Tenant, Project: "other"}, "/a.md"
		}},
		{"wrong tenant", func() (string, driver.Scope, string) {
			return seal(), driver.Scope{Tenant: strings.Repeat("0", 64), Project: "p"}, "/a.md"
		}},
		{"unknown KEK id", func() (string, driver.Scope, string) {
			r := seal()
			tamper(r, func(e *envelope) { e.KEKID = "9" })
			return r, scope, "/a.md"
		}},
		{"missing", func() (string, driver.Scope, string) { return strings.Repeat("ab", 16), scope, "/a.md" }},
		{"malformed reference", func() (string, driver.Scope, string) { return "../../etc", scope, "/a.md" }},
		{"deleted after use", func() (string, driver.Scope, string) {
			r := seal()
			if err := v.Delete(ctx, r); err != nil {
				t.Fatal(err)
			}
			return r, scope, "/a.md"
		}},
		{"expired", func() (string, driver.Scope, string) {
			r := seal()
			clock.advance(61 * time.Second)
			return r, scope, "/a.md"
		}},
		{"expired but still in a store without TTL", func() (string, driver.Scope, string) {
			r := seal()
			raw, _, _ := store.Get(ctx, v.slotKey(r))
			clock.advance(61 * time.Second)
			_ = store.Put(ctx, v.slotKey(r), raw, time.Hour) // a store that ignored the TTL
			return r, scope, "/a.md"
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, s, p := tc.prep()
			key, err := v.Open(ctx, r, s, p)
			if !errors.Is(err, agentfiles.ErrCredentialUnavailable) || key != "" {
				t.Errorf("open: key %q, err %v; want CREDENTIAL_UNAVAILABLE", key, err)
			}
		})
	}
	for _, secret := range []string{apiKey, secretOld, secretNew} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("logs contain key material %q:\n%s", secret, logs.String())
		}
	}
	if !strings.Contains(logs.String(), "credential envelope rejected") {
		t.Error("rejections were not logged at all; the capture test would prove nothing")
	}
}

func TestVaultRotation(t *testing.T) {
	clock := &testClock{}
	store := newMemTTLStore(clock.now)
	ctx := context.Background()
	ac := agentfiles.NewAuthContext(apiKey, "")
	scope := driver.Scope{Tenant: ac.APIKeyHash, Project: "p"}
	old := newTestVault(t, map[string]string{"1": secretOld}, store, clock, nil)
	ref, err := old.Seal(ctx, ac, scope, "/x")
	if err != nil {
		t.Fatal(err)
	}
	// Rotation: KEK 2 added; it seals from now on, KEK 1 still opens old envelopes.
	rotated := newTestVault(t, map[string]string{"1": secretOld, "2": secretNew}, store, clock, nil)
	if got, err := rotated.Open(ctx, ref, scope, "/x"); err != nil || got != apiKey {
		t.Fatalf("rotated vault cannot open an old envelope: %v", err)
	}
	ref2, _ := rotated.Seal(ctx, ac, scope, "/x")
	raw, _, _ := store.Get(ctx, rotated.slotKey(ref2))
	var env envelope
	_ = json.Unmarshal(raw, &env)
	if env.KEKID != "2" {
		t.Errorf("new envelope sealed with KEK %q, want 2", env.KEKID)
	}
	// KEK 1 retired: its envelopes no longer open.
	retired := newTestVault(t, map[string]string{"2": secretNew}, store, clock, nil)
	if _, err := retired.Open(ctx, ref, scope, "/x"); !errors.Is(err, agentfiles.ErrCredentialUnavailable) {
		t.Errorf("retired KEK still opens: %v", err)
	}
	if got, err := retired.Open(ctx, ref2, scope, "/x"); err != nil || got != apiKey {
		t.Errorf("current KEK cannot open: %v", err)
	}
	// The same id with another secret is a different key.
	swapped := newTestVault(t, map[string]string{"2": "a-completely-different-secret!!"}, store, clock, nil)
	if _, err := swapped.Open(ctx, ref2, scope, "/x"); !errors.Is(err, agentfiles.ErrCredentialUnavailable) {
		t.Errorf("wrong KEK secret opens: %v", err)
	}
}

// 100 rapid appends to one file once left 79 envelopes behind, each until its
// TTL. A newer seal for the same file now replaces the older envelope.
func TestRapidAppendsLeaveOneEnvelope(t *testing.T) {
	clock := newTestClock()
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
	clock := newTestClock()
	store := newMemTTLStore(clock.now)
	v := newTestVault(t, map[string]string{"1": secretOld}, store, clock, nil)
	ctx := context.Background()
	ac := agentfiles.NewAuthContext(apiKey, "alice")
	scope := driver.Scope{Tenant: ac.APIKeyHash, Project: "p"}
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

func TestNewErrors(t *testing.T) {
	tests := []struct {
		keks map[string]string
		opts Options
		arg  string
	}{
		{nil, Options{}, "settings.mcp.files.security.encryption_keks"},
		{map[string]string{"": secretOld}, Options{}, "settings.mcp.files.security.encryption_keks"},
		{map[string]string{"1": "short"}, Options{}, "settings.mcp.files.security.encryption_keks.1"},
		{map[string]string{"1": secretOld}, Options{SealKEK: "7"}, "SealKEK"},
	}
	for _, tc := range tests {
		_, err := New(tc.keks, tc.opts)
		var e *agentfiles.Error
		if !errors.As(err, &e) || e.Code != agentfiles.CodeInvalidConfig || e.Arg != tc.arg || !errors.Is(err, agentfiles.ErrInvalidConfig) {
			t.Errorf("New(%v, %+v) = %v, want INVALID_CONFIG naming %s", tc.keks, tc.opts, err, tc.arg)
		}
	}
	if got := newestID([]string{"9", "10", "2"}); got != "10" {
		t.Errorf("newest numeric id %q, want 10", got)
	}
	if got := newestID([]string{"2024-01", "2025-06", "2025-01"}); got != "2025-06" {
		t.Errorf("newest id %q", got)
	}
	// No key to seal: no envelope.
	v := newTestVault(t, map[string]string{"1": secretOld}, nil, &testClock{}, nil)
	if ref, err := v.Seal(context.Background(), agentfiles.AuthContext{APIKeyHash: "h"}, driver.Scope{}, "/a"); ref != "" || err != nil {
		t.Errorf("seal without a key: %q %v", ref, err)
	}
}

// failingStore is a TTLStore whose backend is down.
type failingStore struct{ err error }

func (f failingStore) Put(context.Context, string, []byte, time.Duration) error { return f.err }
func (f failingStore) Get(context.Context, string) ([]byte, bool, error)        { return nil, false, f.err }
func (f failingStore) Delete(context.Context, string) error                     { return f.err }

// TestStoreFailures: a store that is down makes sealing and deleting UNAVAILABLE (retryable)
// and opening CREDENTIAL_UNAVAILABLE; a context that ended passes through as itself.
func TestStoreFailures(t *testing.T) {
	ac := agentfiles.NewAuthContext(apiKey, "")
	scope := driver.Scope{Tenant: ac.APIKeyHash, Project: "p"}
	ref := strings.Repeat("ab", 16)
	for _, cause := range []error{errors.New("dial tcp 10.0.0.7:6379: connection refused"), context.DeadlineExceeded} {
		v := newTestVault(t, map[string]string{"1": secretOld}, failingStore{cause}, &testClock{}, nil)
		ctx := context.Background()
		_, sealErr := v.Seal(ctx, ac, scope, "/a.md")
		_, openErr := v.Open(ctx, ref, scope, "/a.md")
		deleteErr := v.Delete(ctx, ref)
		got := []string{agentfiles.ErrorCode(sealErr).String(), agentfiles.ErrorCode(openErr).String(), agentfiles.ErrorCode(deleteErr).String()}
		want := []string{"UNAVAILABLE", "CREDENTIAL_UNAVAILABLE", "UNAVAILABLE"}
		if cause == context.DeadlineExceeded {
			want = []string{"TIMEOUT", "CREDENTIAL_UNAVAILABLE", "TIMEOUT"}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("cause %v: codes of Seal, Open, Delete (-want +got):\n%s", cause, diff)
		}
		if !errors.Is(openErr, agentfiles.ErrCredentialUnavailable) || !agentfiles.ErrorCode(openErr).Retryable() {
			t.Errorf("Open: %v, want a retryable CREDENTIAL_UNAVAILABLE", openErr)
		}
		for _, err := range []error{sealErr, openErr, deleteErr} {
			if strings.Contains(err.Error(), "10.0.0.7") {
				t.Errorf("the store's address leaked into %q", err)
			}
		}
	}
	if !errors.Is(agentfiles.WrapError(agentfiles.CodeUnavailable, "x", "", nil), agentfiles.ErrUnavailable) {
		t.Error("UNAVAILABLE does not match its sentinel")
	}
}
