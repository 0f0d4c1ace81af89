package fileio_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
)

func TestRateLimitRefills(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	svc := newSvc(t, newMem(), func(c *fileio.Config) { c.RateLimitPerSecond, c.RateLimitBurst = 2, 2 }, fileio.WithClock(clock))
	ctx := authed("k")
	call := func() string { _, err := svc.Stat(ctx, "p", ""); return fileio.ErrorCode(err) }
	got := []string{call(), call(), call()}
	advance(499 * time.Millisecond)
	got = append(got, call())
	advance(time.Millisecond)
	got = append(got, call(), call())
	advance(time.Hour) // refills to the burst, not beyond
	got = append(got, call(), call(), call())
	want := []string{"", "", "RATE_LIMITED", "RATE_LIMITED", "", "RATE_LIMITED", "", "", "RATE_LIMITED"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("outcomes %q, want %q", got, want)
	}
}

type failingSealer struct{}

func (failingSealer) Seal(context.Context, fileio.AuthContext, fileio.Scope, string) (string, error) {
	return "", errors.New("vault unavailable")
}

func TestSealerFailureDegrades(t *testing.T) {
	var buf bytes.Buffer
	store := memstore.New()
	svc := newSvc(t, store, nil, fileio.WithCredentialSealer(failingSealer{}),
		fileio.WithLogger(slog.New(slog.NewTextHandler(&buf, nil))))
	if _, err := svc.Write(authed("k"), fileio.WriteRequest{Project: "p", Path: "/f", Content: "x"}); err != nil {
		t.Fatalf("a sealing failure failed the write: %v", err)
	}
	jobs, _ := store.ClaimJobs(context.Background(), 1, time.Minute)
	if len(jobs) != 1 || jobs[0].CredentialRef != "" {
		t.Errorf("jobs %+v, want one without a credential reference", jobs)
	}
	if !strings.Contains(buf.String(), "level=WARN") || !strings.Contains(buf.String(), "lexical-only") {
		t.Errorf("no warning logged: %s", buf.String())
	}
}

func TestAuthContext(t *testing.T) {
	ac := fileio.NewAuthContext("secret-key", "bob")
	if ac.APIKeyHash != "85dbe15d75ef9308c7ae0f33c7a324cc6f4bf519a2ed2f3027bd33c140a4f9aa" {
		t.Errorf("hash %q", ac.APIKeyHash)
	}
	if got, ok := fileio.AuthFromContext(fileio.WithAuth(context.Background(), ac)); !ok || got != ac {
		t.Errorf("round trip through the context failed")
	}
	if _, ok := fileio.AuthFromContext(context.Background()); ok {
		t.Errorf("identity in an empty context")
	}
	if s := ac.String(); strings.Contains(s, "secret-key") || !strings.Contains(s, "<redacted>") {
		t.Errorf("String() = %q", s)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(authed("k"))
	cancel()
	_, err := newSvc(t, newMem(), nil).Write(ctx, fileio.WriteRequest{Project: "p", Path: "/f", Content: "x"})
	if fileio.ErrorCode(err) != fileio.CodeInternal || !errors.Is(err, context.Canceled) {
		t.Errorf("write with a cancelled context = %v; want INTERNAL wrapping context.Canceled", err)
	}
}
