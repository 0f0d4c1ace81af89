package shell_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/shell"
)

// TestConflicts changes the project while a command runs (the hook command) and checks that
// the command fails with CONFLICT and writes nothing when the change touches what it read or
// wrote, and commits when it does not.
func TestConflicts(t *testing.T) {
	sh, svc, ctx := newShell(t)
	defer func() { shell.Hook = func() {} }()
	tests := []struct {
		name, cmd, changed string
		conflict           bool
	}{
		{"a file read", "read l < /a; hook; echo \"$l\" > /out", "/a", true},
		{"a file written", "echo 1 > /b; hook; echo 2 >> /b; echo x > /out", "/b", true},
		{"a file read later", "read l < /a; hook; read m < /b; echo x > /out", "/b", true},
		{"a directory listed", "echo /d/*; hook; echo x > /out", "/d/new", true},
		{"an unrelated file", "read l < /a; hook; echo \"$l\" > /out", "/elsewhere/c", false},
		{"read only, unrelated", "read l < /a; hook; echo $l", "/c", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := "p-" + tt.name
			write(t, svc, ctx, p, "/a", "a\n")
			write(t, svc, ctx, p, "/b", "b\n")
			write(t, svc, ctx, p, "/d/x", "x\n")
			shell.Hook = func() { write(t, svc, ctx, p, tt.changed, "changed\n") }
			_, err := sh.Run(ctx, shell.Request{Project: p, Command: tt.cmd})
			if got := errors.Is(err, fileio.ErrConflict); got != tt.conflict {
				t.Fatalf("err = %v, want conflict %v", err, tt.conflict)
			}
			st, _ := svc.Stat(ctx, fileio.StatRequest{Project: p, Path: "/out"})
			if tt.conflict && st.Exists {
				t.Errorf("a conflicting command wrote /out")
			}
		})
	}
}

// TestStoppedCommandsChangeNothing stops commands by their timeout and by their caller.
func TestStoppedCommandsChangeNothing(t *testing.T) {
	sh, svc, ctx := newShell(t)
	write(t, svc, ctx, "p", "/a", "a\n")
	cctx, cancel := context.WithCancel(ctx)
	shell.Hook = func() { time.AfterFunc(50*time.Millisecond, cancel) }
	defer func() { shell.Hook = func() {} }()
	_, err := sh.Run(cctx, shell.Request{Project: "p", Command: "echo x > /a; echo y > /new; hook; while :; do :; done"})
	if agentfiles.ErrorCode(err) != agentfiles.CodeCanceled {
		t.Errorf("cancelled: %v, want CANCELED", err)
	}
	_, err = sh.Run(ctx, shell.Request{Project: "p", Command: "echo x > /a; echo y > /new; while :; do :; done", Timeout: 100 * time.Millisecond})
	if agentfiles.ErrorCode(err) != agentfiles.CodeTimeout {
		t.Errorf("timed out: %v, want TIMEOUT", err)
	}
	res, err := svc.Read(ctx, fileio.ReadRequest{Project: "p", Path: "/a"})
	if err != nil || res.Content != "a\n" {
		t.Errorf("/a = %q, %v", res.Content, err)
	}
	if st, _ := svc.Stat(ctx, fileio.StatRequest{Project: "p", Path: "/new"}); st.Exists {
		t.Errorf("/new was written")
	}
}
