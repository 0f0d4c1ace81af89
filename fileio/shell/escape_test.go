package shell_test

import (
	"os"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/shell"
)

// TestNoHost runs commands that would reach the host in a real shell: each must see only the
// project (and fixed /dev names), and leave the host untouched.
func TestNoHost(t *testing.T) {
	sh, svc, ctx := newShell(t)
	write(t, svc, ctx, "p", "/src/a.txt", "a\n")
	hostFile := t.TempDir() + "/host.txt"
	if err := os.WriteFile(hostFile, []byte("HOST SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Setenv("AGENTFILES_SHELL_TEST_SECRET", "leaked-from-env")
	defer os.Unsetenv("AGENTFILES_SHELL_TEST_SECRET")
	tests := []struct {
		name, cmd string
		stdout    string // exact, unless contains is set
		exit      int
	}{
		{"etc passwd", "cat /etc/passwd", "", 1},
		{"etc passwd redirect", "read l < /etc/passwd; echo \"[$l]\"", "[]\n", 0},
		{"host file by path", "cat " + hostFile + "; [ -e " + hostFile + " ] || echo absent", "absent\n", 0},
		{"proc", "cat /proc/self/environ; [ -d /proc ] || echo none", "none\n", 0},
		{"dev other", "cat /dev/sda /dev/tty 2>/dev/null; echo $?", "1\n", 0},
		{"dev null", "echo x > /dev/null; cat /dev/null; echo y 2>/dev/null >/dev/stderr; echo done", "done\n", 0},
		{"glob at root", "echo /*", "/src\n", 0},
		{"glob of host dirs", "echo /usr/*/ /etc/*", "/usr/*/ /etc/*\n", 0},
		{"cd past root", "cd /; cd ..; cd ../../..; pwd; cd /src/../../..; pwd", "/\n/\n", 0},
		{"cd host dir", "cd /etc 2>/dev/null || echo no; cd /tmp 2>/dev/null || echo no", "no\nno\n", 0},
		{"env", "echo \"$AGENTFILES_SHELL_TEST_SECRET|$USER|$SHELL|$GOPATH|$HOSTNAME|$PWD|$HOME\"", "|||||/|/\n", 0},
		{"declare", "declare -p | grep -c leaked || true; declare -p | wc -l >/dev/null; echo ok", "", -1},
		{"host binary", "/usr/bin/id; /bin/sh -c id; exec /usr/bin/env", "", 127},
		{"command -v host", "command -v python3 gcc git; echo $?", "1\n", 0},
		{"type host", "type -p python3; echo $?", "1\n", 0},
		{"source host", "source /etc/profile 2>/dev/null; echo $?", "1\n", 0},
		{"pwd -P", "cd src; pwd -P", "/src\n", 0},
		{"procsubst names", "echo <(true)", "/dev/fd/63\n", 0},
		{"procsubst tmp", "p=<(echo hi); cat $p; echo x > $p 2>/dev/null || echo ro", "hi\nro\n", 0},
		{"fifo dir shortcut", "mkdir /tmp; echo x > /tmp/sh-interp-1 && cat /tmp/sh-interp-1", "x\n", 0},
		{"eval procsubst", "eval 'cat <(echo from eval)'", "from eval\n", 0},
		{"trap procsubst fails closed", "trap 'cat <(echo t)' EXIT; echo main", "main\n", -1},
		{"output procsubst", "echo >(cat)", "", -2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := sh.Run(ctx, shell.Request{Project: "p", Command: tt.cmd})
			if tt.exit == -2 {
				if agentfiles.ErrorCode(err) != agentfiles.CodeInvalidArgument {
					t.Fatalf("err = %v, want INVALID_ARGUMENT", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			all := res.Stdout + res.Stderr
			for _, leak := range []string{"HOST SECRET", "leaked-from-env", "root:", "/usr/bin/python3", os.Getenv("HOME") + "/"} {
				if leak != "/" && strings.Contains(all, leak) {
					t.Errorf("output shows %q from the host: %q", leak, all)
				}
			}
			if tt.exit >= 0 && res.ExitCode != tt.exit {
				t.Errorf("exit %d, want %d (stderr %q)", res.ExitCode, tt.exit, res.Stderr)
			}
			if tt.exit >= 0 && tt.stdout != res.Stdout {
				t.Errorf("stdout %q, want %q (stderr %q)", res.Stdout, tt.stdout, res.Stderr)
			}
		})
	}
	if data, _ := os.ReadFile(hostFile); string(data) != "HOST SECRET\n" {
		t.Errorf("the host file changed: %q", data)
	}
	if _, err := os.Stat("/tmp/sh-interp-1"); err == nil {
		t.Errorf("a command created /tmp/sh-interp-1 on the host")
	}
	// What the commands wrote stayed in the project.
	st, err := svc.Stat(ctx, fileio.StatRequest{Project: "p", Path: "/tmp/sh-interp-1"})
	if err != nil || !st.Exists {
		t.Errorf("/tmp/sh-interp-1 is not in the project: %+v, %v", st, err)
	}
}
