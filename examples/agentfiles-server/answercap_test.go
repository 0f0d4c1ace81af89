package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/fileio"
)

// TestGrepAnswerCapAsSent greps one match with 20+20 context lines of 4,096 control characters
// through the HTTP API: the body as sent, JSON escapes included, stays within the answer cap
// (plus its envelope), the first match's context cut to fit.
func TestGrepAnswerCapAsSent(t *testing.T) {
	srv := startServer(t, "-accept-any-token", "-log-level", "off")
	ctl := strings.Repeat(strings.Repeat("\x01", 4096)+"\n", 20)
	mustCall(t, srv.base, "capper", "file_write", map[string]any{"project": "cap", "path": "/ctl.txt", "content": ctl + "the match\n" + ctl})
	r, err := doAPI(srv.base, "capper", "file_grep", map[string]any{"project": "cap", "pattern": "the match", "context": 20})
	if err != nil || r.Status != http.StatusOK {
		t.Fatalf("file_grep: %v %d %.300s", err, r.Status, r.Raw)
	}
	if limit := fileio.DefaultGrepMaxAnswerBytes + 2048; len(r.Raw) > limit {
		t.Errorf("the answer is %d bytes as sent, more than the cap and its envelope (%d)", len(r.Raw), limit)
	}
	if !strings.Contains(string(r.Raw), "the match") || !strings.Contains(string(r.Raw), "cut to fit") {
		t.Errorf("the answer lacks the match or the note that its context was cut: %.300s", r.Raw)
	}
}
