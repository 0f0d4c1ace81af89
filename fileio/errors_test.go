package fileio_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
)

func newMem() *memstore.Store { return memstore.New() }

func authed(key string) context.Context {
	return fileio.WithAuth(context.Background(), fileio.NewAuthContext(key, "tester"))
}

func newSvc(t *testing.T, store fileio.Store, mutate func(*fileio.Config), opts ...fileio.Option) *fileio.Service {
	t.Helper()
	cfg := fileio.DefaultConfig()
	cfg.RateLimitPerSecond = 0
	if mutate != nil {
		mutate(&cfg)
	}
	svc, err := fileio.NewService(store, cfg, opts...)
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

func (failingStore) Update(context.Context, fileio.Scope, func(fileio.WriteTx) error) error {
	return errBackend
}

// TestErrorCodes is the table of every error code of package fileio, each produced through
// the public API (the same table, in prose, is in the package documentation).
func TestErrorCodes(t *testing.T) {
	w := func(svc *fileio.Service, ctx context.Context, path, content string) error {
		_, err := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: path, Content: content})
		return err
	}
	produce := map[string]func(t *testing.T) error{
		fileio.CodeNotFound: func(t *testing.T) error {
			_, err := newSvc(t, newMem(), nil).Read(authed("k"), "p", "/missing", 0, -1)
			return err
		},
		fileio.CodeAlreadyExists: func(t *testing.T) error {
			svc, ctx := newSvc(t, newMem(), nil), authed("k")
			w(svc, ctx, "/lock", "1")
			_, err := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: "/lock", Content: "2", Exclusive: true})
			return err
		},
		fileio.CodeIsDirectory: func(t *testing.T) error {
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
		fileio.CodePermissionDenied: func(t *testing.T) error {
			return newSvc(t, newMem(), nil).Delete(authed("k"), "p", "", true)
		},
		fileio.CodePayloadTooLarge: func(t *testing.T) error {
			return w(newSvc(t, newMem(), func(c *fileio.Config) { c.MaxPayloadBytes = 4 }), authed("k"), "/f", "12345")
		},
		fileio.CodeQuotaExceeded: func(t *testing.T) error {
			svc, ctx := newSvc(t, newMem(), func(c *fileio.Config) { c.MaxFileBytes, c.MaxProjectBytes = 4, 6 }), authed("k")
			w(svc, ctx, "/a", "1234")
			return w(svc, ctx, "/b", "123")
		},
		fileio.CodeRateLimited: func(t *testing.T) error {
			svc := newSvc(t, newMem(), func(c *fileio.Config) { c.RateLimitPerSecond, c.RateLimitBurst = 0.01, 1 })
			svc.Stat(authed("k"), "p", "")
			_, err := svc.Stat(authed("k"), "p", "")
			return err
		},
		fileio.CodeResourceBusy: func(t *testing.T) error {
			store := memstore.New(memstore.WithLockTimeout(20 * time.Millisecond))
			svc, ctx := newSvc(t, store, nil), authed("k")
			scope := fileio.Scope{Tenant: fileio.NewAuthContext("k", "").APIKeyHash, Project: "p"}
			inside, release := make(chan struct{}), make(chan struct{})
			go store.Update(context.Background(), scope, func(fileio.WriteTx) error { close(inside); <-release; return nil })
			<-inside
			defer close(release)
			return w(svc, ctx, "/f", "x")
		},
		fileio.CodeInvalidArgument: func(t *testing.T) error {
			return w(newSvc(t, newMem(), nil), authed("k"), "/f", "\xff\xfe")
		},
		fileio.CodeInternal: func(t *testing.T) error {
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
	// Produced by package search (file_search); fileio defines them so that all FileIO tools
	// share one code space.
	bySearch := map[string]bool{fileio.CodeInvalidQuery: true, fileio.CodeSearchBackendError: true}

	for _, code := range fileio.Codes() {
		fn, ok := produce[code]
		if !ok {
			if !bySearch[code] {
				t.Errorf("code %s has no test producing it", code)
			}
			continue
		}
		t.Run(code, func(t *testing.T) {
			err := fn(t)
			var fe *fileio.Error
			if !errors.As(err, &fe) || fe.Code() != code {
				t.Fatalf("got %v, want code %s", err, code)
			}
			if !errors.Is(err, fileio.NewError(code, "other message", "")) {
				t.Errorf("errors.Is does not match on the code")
			}
			if !strings.HasPrefix(err.Error(), code+": ") || len(fe.Message) < 10 {
				t.Errorf("message %q: want \"CODE: what to do\"", err)
			}
		})
	}
}

func TestErrorIs(t *testing.T) {
	err := fileio.NewError(fileio.CodeNotFound, "no file", "/x")
	if !errors.Is(err, fileio.ErrNotFound) || errors.Is(err, fileio.ErrNotEmpty) {
		t.Errorf("errors.Is against sentinels is wrong")
	}
	wrapped := errors.Join(errors.New("context"), err)
	if fileio.ErrorCode(wrapped) != fileio.CodeNotFound {
		t.Errorf("ErrorCode through a wrapper = %q", fileio.ErrorCode(wrapped))
	}
	if got := err.Error(); got != "NOT_FOUND: no file (/x)" {
		t.Errorf("Error() = %q", got)
	}
	if fileio.ErrorCode(nil) != "" || fileio.ErrorCode(errors.New("x")) != fileio.CodeInternal {
		t.Errorf("ErrorCode of nil / uncoded")
	}
}
