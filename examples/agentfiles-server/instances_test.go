package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/testsize"
	"github.com/google/go-cmp/cmp"
)

// serverProcess is the built server running in a process of its own, which a test can kill.
type serverProcess struct {
	base   string
	cmd    *exec.Cmd
	banner *bufio.Scanner // stdout, after the banner's first line
	stderr *cmdtest.Buffer
}

// startProcess runs bin with args (plus -addr 127.0.0.1:0) and returns once it listens; the
// process is killed when the test ends if it is still running.
func startProcess(t *testing.T, bin string, args ...string) *serverProcess {
	t.Helper()
	p := &serverProcess{cmd: exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...), stderr: &cmdtest.Buffer{}}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	p.banner = bufio.NewScanner(stdout)
	if !p.banner.Scan() {
		t.Fatalf("no banner; stderr: %s", p.stderr.String())
	}
	base, ok := strings.CutPrefix(p.banner.Text(), "agentfiles-server on ")
	if !ok {
		t.Fatalf("first line %q does not name the URL", p.banner.Text())
	}
	p.base, _, _ = strings.Cut(base, " ")
	return p
}

// archiveRoute calls PUT or GET /archive/{project} with the dev token.
func archiveRoute(t *testing.T, base, method, target string, body []byte) []byte {
	t.Helper()
	req, err := http.NewRequest(method, base+"/archive/"+target, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer dev")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s /archive/%s: %d %v %s", method, target, resp.StatusCode, err, out)
	}
	return out
}

// TestRewindOnAKilledInstance kills a server process while it rewinds a project of 1,000
// files on PostgreSQL (300 by default, 1,000 with AGENTFILES_FULL=1), at several moments, and reads the project through a second server: it
// is always wholly as it was before the rewind or wholly at the checkpoint, never a mix, and
// the second server can rewind it at once (the killed instance holds no lock).
func TestRewindOnAKilledInstance(t *testing.T) {
	dbURL := pgtest.New(t)
	bin := cmdtest.Build(t, ".")
	survivor := startServer(t, "-database-url", dbURL, "-log-level", "off")
	const project = "killed-rewind"
	entries := make([]storetest.ArchiveEntry, testsize.Count(t, 1000, 300))
	for i := range entries {
		entries[i] = storetest.ArchiveEntry{Name: fmt.Sprintf("d%d/n\u00f6te %04d.md", i%15, i), Content: strings.Repeat(fmt.Sprintf("line %d of the checkpoint\n", i), 40)}
	}
	archiveRoute(t, survivor.base, http.MethodPut, project+"?mode=replace", storetest.BuildArchive(t, archive.Tar, entries))
	checkpoint := mustCall(t, survivor.base, "dev", "file_checkpoint", map[string]any{"project": project})["checkpoint"]
	snapshot := func() map[string]string {
		return storetest.ReadArchive(t, archiveRoute(t, survivor.base, http.MethodGet, project+"?format=tar", nil))
	}
	atCheckpoint := snapshot()
	for i := range entries {
		entries[i].Content += "changed after the checkpoint\n"
	}
	entries = append(entries, storetest.ArchiveEntry{Name: "added.md", Content: "new\n"})
	archiveRoute(t, survivor.base, http.MethodPut, project+"?mode=replace", storetest.BuildArchive(t, archive.Tar, entries))
	changed := snapshot()

	// How long a whole rewind takes on a fresh instance, to kill the next ones part way.
	undo := mustCall(t, survivor.base, "dev", "file_checkpoint", map[string]any{"project": project})["checkpoint"]
	timed := startProcess(t, bin, "-database-url", dbURL, "-log-level", "off")
	began := time.Now()
	mustCall(t, timed.base, "dev", "file_rewind", map[string]any{"project": project, "checkpoint": checkpoint})
	whole := time.Since(began)
	mustCall(t, survivor.base, "dev", "file_rewind", map[string]any{"project": project, "checkpoint": undo})

	outcomes := map[string]int{}
	for _, part := range []float64{0.2, 0.6, 0.95, 1.5} {
		delay := time.Duration(part * float64(whole))
		undo := mustCall(t, survivor.base, "dev", "file_checkpoint", map[string]any{"project": project})["checkpoint"]
		victim := startProcess(t, bin, "-database-url", dbURL, "-log-level", "off")
		answered := make(chan error, 1)
		go func() {
			_, err := doAPI(victim.base, "dev", "file_rewind", map[string]any{"project": project, "checkpoint": checkpoint})
			answered <- err
		}()
		time.Sleep(delay)
		if err := victim.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = victim.cmd.Wait()
		<-answered
		switch now := snapshot(); {
		case cmp.Equal(now, changed):
			outcomes["not rewound"]++
		case cmp.Equal(now, atCheckpoint):
			outcomes["rewound"]++
			mustCall(t, survivor.base, "dev", "file_rewind", map[string]any{"project": project, "checkpoint": undo})
			if diff := cmp.Diff(changed, snapshot()); diff != "" {
				t.Fatalf("after undoing the rewind (-before +now):\n%s", diff)
			}
		default:
			t.Fatalf("killed %v into the rewind, the project is neither as before nor at the checkpoint:\n%s", delay, cmp.Diff(changed, now))
		}
	}
	t.Logf("a rewind of %d files took %v; outcomes of killing the instance part way: %v", len(entries), whole, outcomes)
	// The survivor rewinds it: no lock or half transaction of the killed instances is left.
	res := mustCall(t, survivor.base, "dev", "file_rewind", map[string]any{"project": project, "checkpoint": checkpoint})
	if diff := cmp.Diff(atCheckpoint, snapshot()); diff != "" || res["total"] != float64(len(entries)) {
		t.Errorf("the survivor's rewind changed %v files (want %d); (-checkpoint +now):\n%s", res["total"], len(entries), diff)
	}
}

// TestChangeFeedAcrossInstances follows file_events with a long poll on one server while a
// server in another process writes, edits, renames and deletes, one acknowledged call at a
// time: every change arrives once, in the order the writer made it.
func TestChangeFeedAcrossInstances(t *testing.T) {
	dbURL := pgtest.New(t)
	follower := startServer(t, "-database-url", dbURL, "-log-level", "off")
	writer := startProcess(t, cmdtest.Build(t, "."), "-database-url", dbURL, "-log-level", "off")
	const project = "followed"
	start := mustCall(t, follower.base, "dev", "file_checkpoint", map[string]any{"project": project})["position"]

	// The writer's calls, one at a time, and the changes each makes.
	type change struct{ Path, Kind string }
	type step struct {
		tool string
		args map[string]any
	}
	var steps []step
	var want []change
	for i := range 60 {
		p := fmt.Sprintf("/docs/caf\u00e9 %02d.md", i)
		steps = append(steps,
			step{"file_write", map[string]any{"path": p, "content": fmt.Sprintf("v1 %d\n", i)}},
			step{"file_edit", map[string]any{"path": p, "edits": []map[string]any{{"old_str": "v1", "new_str": "v2"}}}})
		want = append(want, change{p, "created"}, change{p, "modified"})
		switch moved := fmt.Sprintf("/moved/%02d.md", i); {
		case i%5 == 0:
			steps = append(steps, step{"file_rename", map[string]any{"from": p, "to": moved}})
			want = append(want, change{p, "deleted"}, change{moved, "created"})
		case i%7 == 0:
			steps = append(steps, step{"file_delete", map[string]any{"path": p}})
			want = append(want, change{p, "deleted"})
		}
	}
	wrote := make(chan error, 1)
	go func() {
		for _, s := range steps {
			s.args["project"] = project
			r, err := doAPI(writer.base, "dev", s.tool, s.args)
			if err == nil && r.Status != http.StatusOK {
				err = fmt.Errorf("%s: %d %s", s.tool, r.Status, r.Raw)
			}
			if err != nil {
				wrote <- err
				return
			}
		}
		wrote <- nil
	}()

	var got []change
	after, lastPosition := start, start.(float64)
	deadline := time.Now().Add(2 * time.Minute)
	for len(got) < len(want) && time.Now().Before(deadline) {
		res := mustCall(t, follower.base, "dev", "file_events", map[string]any{"project": project, "after": after, "wait_ms": 5000})
		for _, e := range res["events"].([]any) {
			ev := e.(map[string]any)
			if pos := ev["position"].(float64); pos != lastPosition+1 {
				t.Fatalf("event at position %v follows %v: a gap or a repeat", pos, lastPosition)
			}
			lastPosition = ev["position"].(float64)
			got = append(got, change{ev["path"].(string), ev["kind"].(string)})
		}
		after = res["next_after"]
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the feed followed on another instance (-made +seen):\n%s", diff)
	}
}
