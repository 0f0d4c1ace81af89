package cmdtest_test

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agentfiles/agentfiles/internal/cmdtest"
)

const okcmd = "github.com/agentfiles/agentfiles/internal/cmdtest/internal/okcmd"

// TestBuildAndStart: Build makes a runnable binary named after its package, and Start collects
// both of its output streams until the process is interrupted.
func TestBuildAndStart(t *testing.T) {
	bin := cmdtest.Build(t, okcmd)
	if !strings.HasSuffix(bin, "/okcmd") {
		t.Errorf("binary %s is not named after its package", bin)
	}
	if out, err := exec.Command(bin).Output(); err != nil || string(out) != "ok\n" {
		t.Errorf("built command: %q, %v", out, err)
	}
	p := cmdtest.Start(t, bin, "-serve")
	if got := p.WaitFor(t, regexp.MustCompile(`wait\w+`)); got != "waiting" {
		t.Errorf("WaitFor = %q", got)
	}
	if out := p.Output.String(); !strings.HasPrefix(out, "ok\n") {
		t.Errorf("output = %q, want stdout's ok first", out)
	}
}

func TestBufferConcurrentWriters(t *testing.T) {
	var b cmdtest.Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fmt.Fprintf(&b, "line %d\n", i)
		}()
	}
	wg.Wait()
	if n := strings.Count(b.String(), "\n"); n != 8 {
		t.Errorf("%d lines, want 8:\n%s", n, b.String())
	}
}
