package shell_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/fileio/shell"
)

// BenchmarkLoopStep measures one step of an interpreter loop (while :; do :; done) through
// file_shell's handlers: a loop of b.N iterations in one command.
func BenchmarkLoopStep(b *testing.B) {
	t := &testing.T{}
	sh, _, ctx := newShell(t)
	b.ReportAllocs()
	b.ResetTimer()
	res, err := sh.Run(ctx, shell.Request{Project: "p", Command: "i=0; while [ $i -lt " + itoa(b.N) + " ]; do i=$((i+1)); done"})
	if err != nil || res.ExitCode != 0 {
		b.Fatal(err, res)
	}
}

func itoa(n int) string {
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			return s
		}
	}
}

// BenchmarkRunEcho measures the fixed cost of one command: parse, interpreter, snapshot and
// answer, for "echo hi".
func BenchmarkRunEcho(b *testing.B) {
	t := &testing.T{}
	sh, _, ctx := newShell(t)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sh.Run(ctx, shell.Request{Project: "p", Command: "echo hi"}); err != nil {
			b.Fatal(err)
		}
	}
}
