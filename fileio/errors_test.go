package fileio_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
)

func newMem() *memstore.Store { return memstore.New(memstore.Options{}) }

func authed(key string) context.Context {
	return agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext(key, "tester"))
}

// newSvc returns a Service over store with opts, whose Config is DefaultConfig without a rate
// limit, changed by mutate.
func newSvc(t *testing.T, store fileio.Store, mutate func(*fileio.Config), opts ...fileio.Options) *fileio.Service {
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

func (failingStore) View(context.Context, fileio.Scope, func(fileio.ReadTx) error) error {
	return errBackend
}

func (failingStore) Update(context.Context, fileio.Scope, fileio.UpdateOptions, func(fileio.WriteTx) error) error {
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
			_, err := newSvc(t, newMem(), nil).Read(authed("k"), "p", "/missing", 0, -1)
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
			_, err := svc.Read(ctx, "p", "/f", 1, -1)
			return err
		},
		fileio.CodeNotEmpty: func(t *testing.T) error {
			svc, ctx := newSvc(t, newMem(), nil), authed("k")
			w(svc, ctx, "/d/f", "1")
			return svc.Delete(ctx, "p", "/d", false)
		},
		agentfiles.CodePermissionDenied: func(t *testing.T) error {
			return newSvc(t, newMem(), nil).Delete(authed("k"), "p", "", true)
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
			svc.Stat(authed("k"), "p", "")
			_, err := svc.Stat(authed("k"), "p", "")
			return err
		},
		agentfiles.CodeResourceBusy: func(t *testing.T) error {
			store := newMem()
			svc, ctx := newSvc(t, store, func(c *fileio.Config) { c.LockTimeout = 20 * time.Millisecond }), authed("k")
			scope := fileio.Scope{Tenant: agentfiles.NewAuthContext("k", "").APIKeyHash, Project: "p"}
			inside, release := make(chan struct{}), make(chan struct{})
			go store.Update(context.Background(), scope, fileio.UpdateOptions{}, func(fileio.WriteTx) error { close(inside); <-release; return nil })
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
	_, notFound := svc.Read(ctx, "p", "/missing", 0, -1)
	if !errors.Is(notFound, agentfiles.ErrNotFound) || errors.Is(notFound, fileio.ErrNotEmpty) {
		t.Errorf("errors.Is(%v): want agentfiles.ErrNotFound only", notFound)
	}
	if got := notFound.Error(); got != "NOT_FOUND: no file at this path; use file_list to see existing files (/missing)" {
		t.Errorf("Error() = %q", got)
	}
	svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: "/d/f", Content: "x"})
	notEmpty := svc.Delete(ctx, "p", "/d", false)
	if !errors.Is(notEmpty, fileio.ErrNotEmpty) || errors.Is(notEmpty, agentfiles.ErrNotFound) {
		t.Errorf("errors.Is(%v): want fileio.ErrNotEmpty only", notEmpty)
	}
	if code := agentfiles.ErrorCode(errors.Join(errors.New("context"), notEmpty)); code != fileio.CodeNotEmpty {
		t.Errorf("ErrorCode through a wrapper = %v", code)
	}
	for _, sentinel := range []*agentfiles.Error{fileio.ErrNotDirectory, fileio.ErrInvalidPath, fileio.ErrInvalidOffset, fileio.ErrNotEmpty, fileio.ErrQuotaExceeded} {
		if !slices.Contains(fileio.Codes(), sentinel.Code) {
			t.Errorf("Codes() lacks %s", sentinel.Code)
		}
	}
}
