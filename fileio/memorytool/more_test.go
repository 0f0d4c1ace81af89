package memorytool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memorytool"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/google/go-cmp/cmp"
)

// TestLimits: the documented line limit, the cut of a long view, and the cut of a long old_str
// in a message, over both stores.
func TestLimits(t *testing.T) {
	for name, svc := range services(t) {
		t.Run(name, func(t *testing.T) {
			mem, err := memorytool.New(svc, memorytool.Options{MaxViewBytes: 100})
			if err != nil {
				t.Fatal(err)
			}
			ctx := alice()
			for _, p := range []struct{ path, text string }{
				{"/huge.md", strings.Repeat("\n", memorytool.MaxLines+1)},
				{"/max.md", strings.Repeat("\n", memorytool.MaxLines)},
				{"/long.md", strings.Repeat("0123456789\n", 20)},
				{"/many.md", strings.Repeat("dup\n", 30)},
			} {
				if _, err := svc.Write(ctx, fileio.WriteRequest{Project: memorytool.DefaultProject, Path: p.path, Content: p.text}); err != nil {
					t.Fatal(err)
				}
			}
			long := strings.Repeat("é", 300)
			run(t, ctx, mem, []step{
				{`{"command":"view","path":"/memories/huge.md"}`, "File /memories/huge.md exceeds maximum line limit of 999,999 lines.", "PAYLOAD_TOO_LARGE"},
				{`{"command":"view","path":"/memories/max.md","view_range":[999999,-1]}`, "Here's the content of /memories/max.md with line numbers:\n999999\t", ""},
				{`{"command":"view","path":"/memories/long.md","view_range":[2,-1]}`, "Here's the content of /memories/long.md with line numbers:\n" +
					"     2\t0123456789\n     3\t0123456789\n" +
					"(The view stops at line 3 of 20 to stay within 100 bytes; use view_range [4, 20] to see more.)", ""},
				{`{"command":"str_replace","path":"/memories/long.md","old_str":"` + long + `","new_str":"x"}`,
					"No replacement was performed, old_str `" + strings.Repeat("é", 128) + "…` did not appear verbatim in /memories/long.md.", "NO_MATCH"},
				{`{"command":"str_replace","path":"/memories/many.md","old_str":"dup","new_str":"x"}`,
					"No replacement was performed. Multiple occurrences of old_str `dup` in lines: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, …. Please ensure it is unique", "AMBIGUOUS_MATCH"},
			})
		})
	}
}

// TestConcurrentEdits: str_replace calls racing on one file each either apply or answer
// CONFLICT (or, having read after another's change, apply on top of it); nothing is lost.
func TestConcurrentEdits(t *testing.T) {
	const n = 16
	for name, svc := range services(t) {
		t.Run(name, func(t *testing.T) {
			mem := newTool(t, svc)
			ctx := alice()
			var lines []string
			for i := range n {
				lines = append(lines, fmt.Sprintf("item-%02d: todo", i))
			}
			if _, err := mem.Run(ctx, memorytool.Input{Command: "create", Path: "/memories/list.md", FileText: strings.Join(lines, "\n") + "\n"}); err != nil {
				t.Fatal(err)
			}
			applied := make([]bool, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					old := fmt.Sprintf("item-%02d: todo", i)
					_, err := mem.Run(ctx, memorytool.Input{Command: "str_replace", Path: "/memories/list.md", OldStr: old, NewStr: old[:9] + "done"})
					switch {
					case err == nil:
						applied[i] = true
					case errors.Is(err, fileio.ErrConflict), errors.Is(err, agentfiles.ErrResourceBusy):
					default:
						t.Errorf("str_replace %d: %v", i, err)
					}
				}()
			}
			wg.Wait()
			got, err := svc.Read(ctx, fileio.ReadRequest{Project: memorytool.DefaultProject, Path: "/list.md", OffsetBytes: 0, LengthBytes: new(int64(-1))})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for i := range n {
				state := "todo"
				if applied[i] {
					state = "done"
				}
				want = append(want, fmt.Sprintf("item-%02d: %s", i, state))
			}
			if diff := cmp.Diff(strings.Join(want, "\n")+"\n", got.Content); diff != "" {
				t.Errorf("the file does not hold exactly the edits that succeeded (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTenants: each tenant has its own /memories; the project is an option.
func TestTenants(t *testing.T) {
	for name, svc := range services(t) {
		t.Run(name, func(t *testing.T) {
			mem := newTool(t, svc)
			other, err := memorytool.New(svc, memorytool.Options{Project: "agent-b"})
			if err != nil {
				t.Fatal(err)
			}
			bob := agentfilesCtx("key-bob")
			run(t, alice(), mem, []step{
				{`{"command":"create","path":"/memories/a.md","file_text":"alice"}`, "File created successfully at: /memories/a.md", ""},
			})
			run(t, bob, mem, []step{
				{`{"command":"view","path":"/memories/a.md"}`, "The path /memories/a.md does not exist. Please provide a valid path.", "NOT_FOUND"},
				{`{"command":"delete","path":"/memories/a.md"}`, "Error: The path /memories/a.md does not exist", "NOT_FOUND"},
			})
			run(t, alice(), other, []step{
				{`{"command":"view","path":"/memories/a.md"}`, "The path /memories/a.md does not exist. Please provide a valid path.", "NOT_FOUND"},
			})
			// The memories are ordinary files of the project, for the fileio tools too.
			got, err := svc.Read(alice(), fileio.ReadRequest{Project: memorytool.DefaultProject, Path: "/a.md", OffsetBytes: 0, LengthBytes: new(int64(-1))})
			if err != nil || got.Content != "alice" {
				t.Errorf("fileio read of the memory: %q, %v", got.Content, err)
			}
			if _, err := mem.Execute(agentfilesCtx(""), json.RawMessage(`{"command":"view","path":"/memories"}`)); agentfiles.ErrorCode(err) != agentfiles.CodePermissionDenied {
				t.Errorf("without a tenant: %v", err)
			}
		})
	}
}

func TestNew(t *testing.T) {
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		svc  *fileio.Service
		opts memorytool.Options
		code agentfiles.Code
	}{
		{nil, memorytool.Options{}, agentfiles.CodeInvalidArgument},
		{svc, memorytool.Options{Project: strings.Repeat("p", 200)}, agentfiles.CodeInvalidConfig},
		{svc, memorytool.Options{MaxViewBytes: -1}, agentfiles.CodeInvalidConfig},
	} {
		if _, err := memorytool.New(tc.svc, tc.opts); agentfiles.ErrorCode(err) != tc.code {
			t.Errorf("New(%v): %v, want %v", tc.opts, err, tc.code)
		}
	}
	mem, err := memorytool.New(svc, memorytool.Options{})
	if err != nil || mem.Project() != memorytool.DefaultProject {
		t.Errorf("New with the zero Options: %v, project %q", err, mem.Project())
	}
}

func TestHumanSize(t *testing.T) {
	got := map[int64]string{}
	for _, n := range []int64{0, 1, 1023, 1024, 1536, 4096, 1 << 20, 5<<20 + 1<<19, 3 << 30, 2 << 40} {
		got[n] = memorytool.HumanSize(n)
	}
	want := map[int64]string{0: "0B", 1: "1B", 1023: "1023B", 1024: "1.0K", 1536: "1.5K", 4096: "4.0K",
		1 << 20: "1.0M", 5<<20 + 1<<19: "5.5M", 3 << 30: "3.0G", 2 << 40: "2.0T"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

// racingStore writes path once, in a transaction of its own, just before the first Update
// after it is armed: a writer that slips in between str_replace's read and its edit.
type racingStore struct {
	driver.Store
	armed atomic.Bool
	path  string
}

func (s *racingStore) Update(ctx context.Context, scope driver.Scope, opts driver.UpdateOptions, fn func(driver.WriteTx) error) error {
	if s.armed.CompareAndSwap(true, false) {
		if err := s.Store.Update(ctx, scope, opts, func(tx driver.WriteTx) error {
			_, err := tx.Put(ctx, s.path, []byte("changed by another writer\n"), driver.PutOptions{})
			return err
		}); err != nil {
			return err
		}
	}
	return s.Store.Update(ctx, scope, opts, fn)
}

// TestConflict: a file changed between str_replace's read and its edit is left as the other
// writer made it, and the answer says so.
func TestConflict(t *testing.T) {
	store := &racingStore{Store: memstore.New(memstore.Options{}), path: "/notes.md"}
	svc, err := fileio.NewService(store, fileio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mem := newTool(t, svc)
	ctx := alice()
	run(t, ctx, mem, []step{{`{"command":"create","path":"/memories/notes.md","file_text":"old\n"}`, "File created successfully at: /memories/notes.md", ""}})
	store.armed.Store(true)
	run(t, ctx, mem, []step{
		{`{"command":"str_replace","path":"/memories/notes.md","old_str":"old","new_str":"new"}`,
			"Error: The file /memories/notes.md changed while it was being edited; view it again and redo the str_replace", "CONFLICT"},
		{`{"command":"view","path":"/memories/notes.md"}`, "Here's the content of /memories/notes.md with line numbers:\n     1\tchanged by another writer", ""},
	})
}

// TestListingCut: a directory with more entries than fileio lists at once says so.
func TestListingCut(t *testing.T) {
	cfg := fileio.DefaultConfig()
	cfg.ListLimitDefault, cfg.ListLimitMax = 3, 3
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	mem := newTool(t, svc)
	for _, p := range []string{"/memories/a.md", "/memories/b.md", "/memories/c.md", "/memories/d.md"} {
		if _, err := mem.Run(alice(), memorytool.Input{Command: "create", Path: p, FileText: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	run(t, alice(), mem, []step{{`{"command":"view","path":"/memories"}`, fmt.Sprintf(listHeader, "/memories") +
		"3B\t/memories\n1B\t/memories/a.md\n1B\t/memories/b.md\n1B\t/memories/c.md\n" +
		"(The listing stops after 3 entries and its sizes count only those; view a subdirectory to see the rest.)", ""}})
}

// TestListingCutKeepsTopLevel: when the listing is cut, the first level still shows whole: a
// directory late in path order is not hidden behind the files of an early one.
func TestListingCutKeepsTopLevel(t *testing.T) {
	cfg := fileio.DefaultConfig()
	cfg.ListLimitDefault, cfg.ListLimitMax = 3, 3
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	mem := newTool(t, svc)
	for _, p := range []string{"/memories/a/1.md", "/memories/a/2.md", "/memories/a/3.md", "/memories/a/4.md", "/memories/z.md"} {
		if _, err := mem.Run(alice(), memorytool.Input{Command: "create", Path: p, FileText: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	run(t, alice(), mem, []step{{`{"command":"view","path":"/memories"}`, fmt.Sprintf(listHeader, "/memories") +
		"3B\t/memories\n2B\t/memories/a/\n1B\t/memories/a/1.md\n1B\t/memories/a/2.md\n1B\t/memories/z.md\n" +
		"(The listing stops after 4 entries and its sizes count only those; view a subdirectory to see the rest.)", ""}})
}

// TestCreateTooLarge: a create over the payload limit says how to write the file with the
// memory tool's own commands (it has no append).
func TestCreateTooLarge(t *testing.T) {
	cfg := fileio.DefaultConfig()
	cfg.MaxPayloadBytes = 10
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	run(t, alice(), newTool(t, svc), []step{{`{"command":"create","path":"/memories/big.md","file_text":"0123456789ab"}`,
		"Error: file_text is 12 bytes; one command carries at most 10. Create /memories/big.md with the first part, then add the rest with insert commands (insert_line: the file's last line)",
		"PAYLOAD_TOO_LARGE"}})
}
