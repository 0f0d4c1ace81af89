package fileio_test

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/hostilezip"
	"github.com/agentfiles/agentfiles/internal/memwatch"
)

// updateCounter counts the store's write transactions.
type updateCounter struct {
	driver.Store
	updates atomic.Int64
}

func (u *updateCounter) Update(ctx context.Context, scope driver.Scope, opts driver.UpdateOptions, fn func(driver.WriteTx) error) error {
	u.updates.Add(1)
	return u.Store.Update(ctx, scope, opts, fn)
}

// TestImportHostileZipMemory: the red team's zip (220 MB whose central directory lists one
// empty file 4,000,000 times; Go's archive/zip accepts it) took a server from 29 MiB to 996 MiB
// before it was refused, and three at once from one tenant past 3 GiB. Now three at once, with
// the directory's size declared or hidden, are each refused with PAYLOAD_TOO_LARGE (or wait
// for the tenant's archive slot, RESOURCE_BUSY) before the process's heap passes 64 MiB,
// without opening a transaction of the store.
func TestImportHostileZipMemory(t *testing.T) {
	store := &updateCounter{Store: newMem()}
	svc := newSvc(t, store, nil)
	ctx := authed("red-team")
	const entries = 4_000_000
	t.Logf("each stream: %d bytes declaring %d entries", hostilezip.Size(hostilezip.Options{Entries: entries}), entries)
	runtime.GC()
	watch := memwatch.Start()
	// The sampler must see what is allocated: 8 MiB held through the imports.
	ballast := make([]byte, 8<<20)
	for i := range ballast {
		ballast[i] = byte(i)
	}
	var wg sync.WaitGroup
	codes := make([]agentfiles.Code, 6)
	var first error
	for i := range codes {
		wg.Go(func() {
			o := hostilezip.Options{Entries: entries, HideSize: i%2 == 1}
			_, err := svc.Import(ctx, fileio.ImportRequest{Project: "bomb", Archive: hostilezip.Stream(o)})
			codes[i] = agentfiles.ErrorCode(err)
			if i == 0 {
				first = err
			}
		})
		if i == 2 {
			wg.Wait() // three at once, then three more
		}
	}
	wg.Wait()
	peak := watch.Stop()
	runtime.KeepAlive(ballast)
	if peak < 8<<20 {
		t.Fatalf("the heap's peak was sampled at %d bytes, less than the 8 MiB held: the sampling is broken", peak)
	}
	t.Logf("heap peak %.1f MiB; outcomes %v (%s)", float64(peak)/(1<<20), codes, first)
	if peak > 64<<20 {
		t.Errorf("the heap reached %.1f MiB; the bound is 64 MiB", float64(peak)/(1<<20))
	}
	for i, c := range codes {
		if c != agentfiles.CodePayloadTooLarge && c != agentfiles.CodeResourceBusy {
			t.Errorf("import %d: %v, want PAYLOAD_TOO_LARGE (or RESOURCE_BUSY waiting for the slot)", i, c)
		}
	}
	if n := store.updates.Load(); n != 0 {
		t.Errorf("the refused imports opened %d write transactions", n)
	}
}

// TestImportSpooledBeforeTransaction: an import reads its whole archive before the store's
// transaction opens: while the client has sent part of it, no write transaction is open (the
// project can be written by others), and an archive cut short is refused without one.
func TestImportSpooledBeforeTransaction(t *testing.T) {
	store := &updateCounter{Store: newMem()}
	svc := newSvc(t, store, nil)
	ctx := authed("slow-client")
	data := storetest.BuildArchive(t, archive.TarGz, []storetest.ArchiveEntry{{Name: "a.md", Content: "a\n"}, {Name: "b.md", Content: "b\n"}})
	pr, pw := newPipe()
	done := make(chan error, 1)
	go func() {
		_, err := svc.Import(ctx, fileio.ImportRequest{Project: "p", Archive: pr})
		done <- err
	}()
	pw.write(data[:len(data)/2])
	// The import waits for the rest; meanwhile the project takes writes at once.
	if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: "/other.md", Content: "x"}); err != nil {
		t.Fatalf("a write while the import waits for its archive: %v", err)
	}
	if n := store.updates.Load(); n != 1 {
		t.Errorf("%d write transactions while the archive streams in, want only the write's", n)
	}
	pw.write(data[len(data)/2:])
	pw.close()
	if err := <-done; err != nil {
		t.Fatalf("the import: %v", err)
	}
	// An archive cut short: refused, no transaction.
	before := store.updates.Load()
	_, err := svc.Import(ctx, fileio.ImportRequest{Project: "p", Archive: bytes.NewReader(data[:len(data)-10])})
	if agentfiles.ErrorCode(err) != agentfiles.CodeInvalidArgument || store.updates.Load() != before {
		t.Errorf("an archive cut short: %v, %d transactions; want INVALID_ARGUMENT and none", err, store.updates.Load()-before)
	}
}

// TestArchiveSlot: one tenant runs at most max_concurrent_archives imports and exports at
// once; a further one waits at most lock_timeout, then is RESOURCE_BUSY, and another tenant is
// not affected.
func TestArchiveSlot(t *testing.T) {
	svc := newSvc(t, newMem(), func(c *fileio.Config) { c.LockTimeout = 50 * time.Millisecond })
	ctx := authed("one")
	pr, pw := newPipe()
	done := make(chan error, 1)
	go func() {
		_, err := svc.Import(ctx, fileio.ImportRequest{Project: "p", Archive: pr})
		done <- err
	}()
	pw.write([]byte{0x1f})
	<-pr.reading // the import holds the slot and waits for the rest of its archive
	_, err := svc.Export(ctx, fileio.ExportRequest{Project: "p"}, &bytes.Buffer{})
	if agentfiles.ErrorCode(err) != agentfiles.CodeResourceBusy {
		t.Errorf("an export of the same tenant while its import runs: %v, want RESOURCE_BUSY", err)
	}
	svc.Write(authed("two"), fileio.WriteRequest{Project: "p", Path: "/a", Content: "a"})
	if _, err := svc.Export(authed("two"), fileio.ExportRequest{Project: "p"}, &bytes.Buffer{}); err != nil {
		t.Errorf("another tenant's export: %v", err)
	}
	pw.close()
	<-done
	if _, err := svc.Export(ctx, fileio.ExportRequest{Project: "p", Path: "/"}, &bytes.Buffer{}); agentfiles.ErrorCode(err) == agentfiles.CodeResourceBusy {
		t.Errorf("an export after the import ended: %v", err)
	}
}

// pipe is an io.Pipe whose writes do not wait for the reader: a client sending its request.
type pipe struct{ ch chan []byte }

type pipeReader struct {
	ch      chan []byte
	rest    []byte
	reading chan struct{} // closed at the first Read
	once    sync.Once
}

func newPipe() (*pipeReader, *pipe) {
	ch := make(chan []byte, 16)
	return &pipeReader{ch: ch, reading: make(chan struct{})}, &pipe{ch: ch}
}

func (p *pipe) write(b []byte) { p.ch <- bytes.Clone(b) }
func (p *pipe) close()         { close(p.ch) }

func (r *pipeReader) Read(b []byte) (int, error) {
	r.once.Do(func() { close(r.reading) })
	for len(r.rest) == 0 {
		next, ok := <-r.ch
		if !ok {
			return 0, io.EOF
		}
		r.rest = next
	}
	n := copy(b, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}
