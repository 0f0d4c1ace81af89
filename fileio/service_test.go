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

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/google/go-cmp/cmp"
)

func TestRateLimitRefills(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	svc := newSvc(t, newMem(), func(c *fileio.Config) { c.RateLimitPerSecond, c.RateLimitBurst = 2, 2 }, fileio.Options{Now: clock})
	ctx := authed("k")
	call := func() string { _, err := svc.Stat(ctx, "p", ""); return outcome(err) }
	got := []string{call(), call(), call()}
	advance(499 * time.Millisecond)
	got = append(got, call())
	advance(time.Millisecond)
	got = append(got, call(), call())
	advance(time.Hour) // refills to the burst, not beyond
	got = append(got, call(), call(), call())
	want := []string{"OK", "OK", "RATE_LIMITED", "RATE_LIMITED", "OK", "RATE_LIMITED", "OK", "OK", "RATE_LIMITED"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("outcomes %q, want %q", got, want)
	}
}

type failingSealer struct{}

func (failingSealer) Seal(context.Context, agentfiles.AuthContext, fileio.Scope, string) (string, error) {
	return "", errors.New("vault unavailable")
}

func TestSealerFailureDegrades(t *testing.T) {
	var buf bytes.Buffer
	store := memstore.New(memstore.Options{})
	svc := newSvc(t, store, nil, fileio.Options{CredentialSealer: failingSealer{},
		Logger: slog.New(slog.NewTextHandler(&buf, nil))})
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

// TestContextEnded: a context that ends before the store is reached is CANCELED or TIMEOUT,
// wrapping the context's error.
func TestContextEnded(t *testing.T) {
	canceled, cancel := context.WithCancel(authed("k"))
	cancel()
	expired, cancel2 := context.WithDeadline(authed("k"), time.Now().Add(-time.Second))
	defer cancel2()
	tests := []struct {
		ctx   context.Context
		code  agentfiles.Code
		cause error
	}{
		{canceled, agentfiles.CodeCanceled, context.Canceled},
		{expired, agentfiles.CodeTimeout, context.DeadlineExceeded},
	}
	for _, tc := range tests {
		_, err := newSvc(t, newMem(), nil).Write(tc.ctx, fileio.WriteRequest{Project: "p", Path: "/f", Content: "x"})
		if agentfiles.ErrorCode(err) != tc.code || !errors.Is(err, tc.cause) {
			t.Errorf("write = %v; want %s wrapping %v", err, tc.code, tc.cause)
		}
	}
}

// TestZeroConfigIsDefault: Options{} runs with DefaultConfig.
func TestZeroConfigIsDefault(t *testing.T) {
	svc, err := fileio.NewService(newMem(), fileio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fileio.DefaultConfig(), svc.Config()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// outcome is "OK" or the error's code.
func outcome(err error) string {
	if err == nil {
		return "OK"
	}
	return agentfiles.ErrorCode(err).String()
}
