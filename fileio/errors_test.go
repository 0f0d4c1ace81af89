package fileio_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
)

func newMem() *memstore.Store { return memstore.New(memstore.Options{}) }

func authed(key string) context.Context {
	return agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext(key, "tester"))
}

// newSvc returns a Service over store with opts, whose Config is DefaultConfig without a rate
// limit, changed by mutate.
func newSvc(t *testing.T, store driver.Store, mutate func(*fileio.Config), opts ...fileio.Options) *fileio.Service {
	t.Helper()
	var o fileio.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	o.Config = fileio.DefaultConfig()
	o.Config.RateLimitPerSecond = 0
	if mutate != nil {
		mutate(&o.Config)
	}
	svc, err := fileio.NewService(store, o)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// failingStore is a Store whose reads and writes fail the way a broken database would.
type failingStore struct{ *memstore.Store }

var errBackend = errors.New("pq: connection to 10.0.0.5:5432 refused; SELECT content FROM files")

func (failingStore) View(context.Context, driver.Scope, func(driver.ReadTx) error) error {
	return errBackend
}

func (failingStore) Update(context.Context, driver.Scope, driver.UpdateOptions, func(driver.WriteTx) error) error {
	return errBackend
}

// TestErrorCodes is the table of every error code of package fileio, each produced through
// the public API (the same table, in prose, is in the package documentation).
func TestErrorCodes(t *testing.T) {
	w := func(svc *fileio.Service, ctx context.Context, path, content string) error {
		_, err := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: path, Content: content})
		return err
	}
	produce := map[agentfiles.Code]func(t *testing.T) error{
		agentfiles.CodeNotFound: func(t *testing.T) error {
			_, err := newSvc(t, newMem(), nil).Read(authed("k"), fileio.ReadRequest{Project: "p", Path: "/missing", OffsetBytes: 0, LengthBytes: new(int64(-1))})
			return err
		},
		agentfiles.CodeAlreadyExists: func(t *testing.T) error {
			svc, ctx := newSvc(t, newMem(), nil), authed("k")
			w(svc, ctx, "/lock", "1")
			_, err := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: "/lock", Content: "2", Exclusive: true})
			return err
		},
		agentfiles.CodeIsDirectory: func(t *testing.T) error {
			svc, ctx := newSvc(t, newMem(), nil), authed("k")
			w(svc, ctx, "/d/f", "1")
			return w(svc, ctx, "/d", "x")
		},
		fileio.CodeNotDirectory: func(t *testing.T) error {
			svc, ctx := newSvc(t, newMem(), nil), authed("k")
			w(svc, ctx, "/f", "1")
			return w(svc, ctx, "/f/g", "x")
		},
		fileio.CodeInvalidPath: func(t *testing.T) error {
			return w(newSvc(t, newMem(), nil), authed("k"), "/a//b", "x")
		},
		fileio.CodeInvalidOffset: func(t *testing.T) error {
			svc, ctx := newSvc(t, newMem(), nil), authed("k")
			w(svc, ctx, "/f", "é")
			_, err := svc.Read(ctx, fileio.ReadRequest{Project: "p", Path: "/f", OffsetBytes: 1, LengthBytes: new(int64(-1))})
			return err
		},
		fileio.CodeNotEmpty: func(t *testing.T) error {
			svc, ctx := newSvc(t, newMem(), nil), authed("k")
			w(svc, ctx, "/d/f", "1")
			return svc.Delete(ctx, fileio.DeleteRequest{Project: "p", Path: "/d", Recursive: false})
		},
		fileio.CodeConflict: func(t *testing.T) error {
			svc, ctx := newSvc(t, newMem(), nil), authed("k")
			w(svc, ctx, "/f", "a")
			_, err := svc.Edit(ctx, fileio.EditRequest{Project: "p", Path: "/f", Edits: []fileio.Edit{{OldStr: "a", NewStr: "b"}},
				ExpectedSHA256: fileio.SHA256Hex([]byte("other"))})
			return err
		},
		fileio.CodeNoMatch: func(t *testing.T) error {
			svc, ctx := newSvc(t, newMem(), nil), authed("k")
			w(svc, ctx, "/f", "a")
			_, err := svc.Edit(ctx, fileio.EditRequest{Project: "p", Path: "/f", Edits: []fileio.Edit{{OldStr: "x", NewStr: "b"}}})
			return err
		},
		fileio.CodeInvalidPatch: func(t *testing.T) error {
			_, err := newSvc(t, newMem(), nil).ApplyPatch(authed("k"), fileio.ApplyPatchRequest{Project: "p", Patch: "*** Begin Patch\n*** Oops\n*** End Patch"})
			return err
		},
		fileio.CodeAmbiguousMatch: func(t *testing.T) error {
			svc, ctx := newSvc(t, newMem(), nil), authed("k")
			w(svc, ctx, "/f", "a\na\n")
			_, err := svc.Edit(ctx, fileio.EditRequest{Project: "p", Path: "/f", Edits: []fileio.Edit{{OldStr: "a", NewStr: "b"}}})
			return err
		},
		agentfiles.CodePermissionDenied: func(t *testing.T) error {
			return newSvc(t, newMem(), nil).Delete(authed("k"), fileio.DeleteRequest{Project: "p", Path: "", Recursive: true})
		},
		agentfiles.CodePayloadTooLarge: func(t *testing.T) error {
			return w(newSvc(t, newMem(), func(c *fileio.Config) { c.MaxPayloadBytes = 4 }), authed("k"), "/f", "12345")
		},
		fileio.CodeQuotaExceeded: func(t *testing.T) error {
			svc, ctx := newSvc(t, newMem(), func(c *fileio.Config) { c.MaxFileBytes, c.MaxProjectBytes = 4, 6 }), authed("k")
			w(svc, ctx, "/a", "1234")
			return w(svc, ctx, "/b", "123")
		},
		agentfiles.CodeRateLimited: func(t *testing.T) error {
			svc := newSvc(t, newMem(), func(c *fileio.Config) { c.RateLimitPerSecond, c.RateLimitBurst = 0.01, 1 })
			svc.Stat(authed("k"), fileio.StatRequest{Project: "p", Path: ""})
			_, err := svc.Stat(authed("k"), fileio.StatRequest{Project: "p", Path: ""})
			return err
		},
		agentfiles.CodeResourceBusy: func(t *testing.T) error {
			store := newMem()
			svc, ctx := newSvc(t, store, func(c *fileio.Config) { c.LockTimeout = 20 * time.Millisecond }), authed("k")
			scope := driver.Scope{Tenant: agentfiles.NewAuthContext("k", "").APIKeyHash, Project: "p"}
			inside, release := make(chan struct{}), make(chan struct{})
			go store.Update(context.Background(), scope, driver.UpdateOptions{}, func(driver.WriteTx) error { close(inside); <-release; return nil })
			<-inside
			defer close(release)
			return w(svc, ctx, "/f", "x")
		},
		agentfiles.CodeInvalidConfig: func(t *testing.T) error {
			_, err := fileio.NewService(newMem(), fileio.Options{Config: fileio.Config{MaxPayloadBytes: 1}})
			return err
		},
		agentfiles.CodeTimeout: func(t *testing.T) error {
			ctx, cancel := context.WithDeadline(authed("k"), time.Now().Add(-time.Second))
			defer cancel()
			return w(newSvc(t, newMem(), nil), ctx, "/f", "x")
		},
		agentfiles.CodeCanceled: func(t *testing.T) error {
			ctx, cancel := context.WithCancel(authed("k"))
			cancel()
			return w(newSvc(t, newMem(), nil), ctx, "/f", "x")
		},
		agentfiles.CodeInvalidArgument: func(t *testing.T) error {
			return w(newSvc(t, newMem(), nil), authed("k"), "/f", "\xff\xfe")
		},
		agentfiles.CodeInvalidPattern: func(t *testing.T) error {
			_, err := newSvc(t, newMem(), nil).Grep(authed("k"), fileio.GrepRequest{Project: "p", Pattern: "a(b"})
			return err
		},
		agentfiles.CodeInternal: func(t *testing.T) error {
			err := w(newSvc(t, failingStore{newMem()}, nil), authed("k"), "/f", "x")
			if strings.Contains(err.Error(), "5432") || strings.Contains(err.Error(), "SELECT") {
				t.Errorf("INTERNAL message leaks the backend error: %q", err)
			}
			if !errors.Is(err, errBackend) {
				t.Errorf("INTERNAL does not wrap the cause for operators")
			}
			return err
		},
	}
	// UNAVAILABLE needs a database that is down: pgstore's TestServerKilledDuringWrites and
	// TestUnreachableIsUnavailable produce it.
	byStoresOnly := map[agentfiles.Code]bool{agentfiles.CodeUnavailable: true}

	for _, code := range fileio.Codes() {
		fn, ok := produce[code]
		if !ok {
			if !byStoresOnly[code] {
				t.Errorf("code %s has no test producing it", code)
			}
			continue
		}
		t.Run(code.String(), func(t *testing.T) {
			err := fn(t)
			var fe *agentfiles.Error
			if !errors.As(err, &fe) || fe.Code != code {
				t.Fatalf("got %v, want code %s", err, code)
			}
			if !errors.Is(err, agentfiles.NewError(code, "other message", "")) {
				t.Errorf("errors.Is does not match on the code")
			}
			if !strings.HasPrefix(err.Error(), code.String()+": ") || len(fe.Message) < 10 {
				t.Errorf("message %q: want \"CODE: what to do\"", err)
			}
		})
	}
}

// TestErrorsMatchSentinels: fileio's errors match the agentfiles sentinels of the codes it
// shares, its own sentinels match only its own codes, and the text is "CODE: message (arg)".
func TestErrorsMatchSentinels(t *testing.T) {
	svc, ctx := newSvc(t, newMem(), nil), authed("k")
	_, notFound := svc.Read(ctx, fileio.ReadRequest{Project: "p", Path: "/missing", OffsetBytes: 0, LengthBytes: new(int64(-1))})
	if !errors.Is(notFound, agentfiles.ErrNotFound) || errors.Is(notFound, fileio.ErrNotEmpty) {
		t.Errorf("errors.Is(%v): want agentfiles.ErrNotFound only", notFound)
	}
	if got := notFound.Error(); got != "NOT_FOUND: no file at this path; use file_list to see existing files (/missing)" {
		t.Errorf("Error() = %q", got)
	}
	svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: "/d/f", Content: "x"})
	notEmpty := svc.Delete(ctx, fileio.DeleteRequest{Project: "p", Path: "/d", Recursive: false})
	if !errors.Is(notEmpty, fileio.ErrNotEmpty) || errors.Is(notEmpty, agentfiles.ErrNotFound) {
		t.Errorf("errors.Is(%v): want fileio.ErrNotEmpty only", notEmpty)
	}
	if code := agentfiles.ErrorCode(errors.Join(errors.New("context"), notEmpty)); code != fileio.CodeNotEmpty {
		t.Errorf("ErrorCode through a wrapper = %v", code)
	}
	for _, sentinel := range []*agentfiles.Error{fileio.ErrNotDirectory, fileio.ErrInvalidPath, fileio.ErrInvalidOffset, fileio.ErrNotEmpty, fileio.ErrQuotaExceeded,
		fileio.ErrConflict, fileio.ErrNoMatch, fileio.ErrAmbiguousMatch} {
		if !slices.Contains(fileio.Codes(), sentinel.Code) {
			t.Errorf("Codes() lacks %s", sentinel.Code)
		}
	}
}

func TestRateLimitRefills(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	svc := newSvc(t, newMem(), func(c *fileio.Config) { c.RateLimitPerSecond, c.RateLimitBurst = 2, 2 }, fileio.Options{Now: clock})
	ctx := authed("k")
	call := func() string {
		_, err := svc.Stat(ctx, fileio.StatRequest{Project: "p", Path: ""})
		return outcome(err)
	}
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

func (failingSealer) Seal(context.Context, agentfiles.AuthContext, driver.Scope, string) (string, error) {
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

// outcome is "OK" or the error's code.
func outcome(err error) string {
	if err == nil {
		return "OK"
	}
	return agentfiles.ErrorCode(err).String()
}
