package shell_test

import (
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/shell"
)

func TestBudgetsStopCommands(t *testing.T) {
	sh, svc, ctx := newShell(t, func(c *fileio.Config) {
		c.ShellMaxWriteBytes = 1 << 20
		c.ShellMaxOutputBytes = 4096
		c.ShellMaxSteps = 1 << 40 // the loops below run into their timeout
	})
	write(t, svc, ctx, "p", "/keep.txt", "kept\n")
	tests := []struct {
		name, cmd string
		timeout   time.Duration
		code      agentfiles.Code
	}{
		{"endless loop", "echo x > /w.txt; while :; do :; done", 300 * time.Millisecond, agentfiles.CodeTimeout},
		{"arithmetic loop", "echo x > /w.txt; while ((1)); do ((i++)); done", 300 * time.Millisecond, agentfiles.CodeTimeout},
		{"fork bomb", "echo x > /w.txt; :(){ :|:& };:", 10 * time.Second, agentfiles.CodeInvalidArgument},
		{"recursion", "echo x > /w.txt; f(){ f; }; f", 10 * time.Second, agentfiles.CodeInvalidArgument},
		{"write budget", "yes | cat > /w.txt", 10 * time.Second, fileio.CodeQuotaExceeded},
		{"procsubst bomb", "f(){ cat <(f); }; f", 10 * time.Second, agentfiles.CodeInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := sh.Run(ctx, shell.Request{Project: "p", Command: tt.cmd, Timeout: tt.timeout})
			if agentfiles.ErrorCode(err) != tt.code {
				t.Fatalf("err = %v, want code %s", err, tt.code)
			}
			t.Logf("%s: %v after %v", tt.name, err, time.Since(start))
			if st, err := svc.Stat(ctx, fileio.StatRequest{Project: "p", Path: "/w.txt"}); err != nil || st.Exists {
				t.Errorf("/w.txt was written by a command that failed")
			}
		})
	}
}

func TestOutputIsCapped(t *testing.T) {
	sh, _, ctx := newShell(t, func(c *fileio.Config) { c.ShellMaxOutputBytes = 1000 })
	res, err := sh.Run(ctx, shell.Request{Project: "p", Command: "yes"})
	if err != nil {
		t.Fatal(err)
	}
	// "y\n" is three bytes as sent ("y\\n" in JSON).
	if sent := len(res.Stdout) / 2 * 3; !res.Truncated || res.Note == "" || sent > 1000 || sent < 990 || res.ExitCode == 0 {
		t.Errorf("truncated %v, note %q, %d bytes as sent, exit %d", res.Truncated, res.Note, sent, res.ExitCode)
	}
}

func TestStepsBudget(t *testing.T) {
	sh, svc, ctx := newShell(t, func(c *fileio.Config) { c.ShellMaxSteps = 1000 })
	_, err := sh.Run(ctx, shell.Request{Project: "p", Command: "echo x > /w.txt; while :; do :; done"})
	if agentfiles.ErrorCode(err) != agentfiles.CodeInvalidArgument {
		t.Fatalf("err = %v, want INVALID_ARGUMENT", err)
	}
	if st, _ := svc.Stat(ctx, fileio.StatRequest{Project: "p", Path: "/w.txt"}); st.Exists {
		t.Errorf("/w.txt was written")
	}
	res, err := sh.Run(ctx, shell.Request{Project: "p", Command: "for i in $(seq 10 2>/dev/null || echo 1 2 3); do :; done; echo ok"})
	if err != nil || res.Stdout != "ok\n" {
		t.Errorf("a short loop: %+v, %v", res, err)
	}
}
