// Package cmdtest builds the module's commands and runs them for tests: the example servers
// driven end to end, and the helper processes of the multi-process database tests.
//
//	bin := cmdtest.Build(t, ".")                     // the command under test
//	p := cmdtest.Start(t, bin, "-addr", "127.0.0.1:0") // interrupted when the test ends
//	url := p.WaitFor(t, regexp.MustCompile(`http://\S+/mcp`))
//
// All functions and methods are safe for concurrent use.
package cmdtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/poll"
)

// Build compiles the main package pkg (an import path, or "." for the package under test) into
// the test's temporary directory and returns the binary's path.
//
// Linking a server takes seconds, and many tests build the same command: the binary is linked
// into a directory of the user's cache (agentfiles-cmdtest/, one per package and directory of
// the tests), where go build finds it up to date until its sources change, and copied from
// there. Without a cache directory it is linked into the test's directory directly.
func Build(tb testing.TB, pkg string) string {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	name := filepath.Base(pkg)
	if pkg == "." {
		name = filepath.Base(wd)
	}
	bin := filepath.Join(tb.TempDir(), name)
	cache, err := os.UserCacheDir()
	if err != nil {
		goBuild(tb, bin, pkg)
		return bin
	}
	key := sha256.Sum256([]byte(wd + "\x00" + pkg))
	dir := filepath.Join(cache, "agentfiles-cmdtest", hex.EncodeToString(key[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		goBuild(tb, bin, pkg)
		return bin
	}
	// One build at a time per cached binary, across the test processes of this machine too.
	unlock, err := lockFile(filepath.Join(dir, "lock"))
	if err != nil {
		tb.Fatalf("cmdtest: %v", err)
	}
	defer unlock()
	cached := filepath.Join(dir, name)
	goBuild(tb, cached, pkg)
	if err := copyFile(bin, cached); err != nil {
		tb.Fatalf("cmdtest: copying the built %s: %v", pkg, err)
	}
	return bin
}

// goBuild runs go build -o bin pkg, which does nothing when bin is up to date.
func goBuild(tb testing.TB, bin, pkg string) {
	tb.Helper()
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
}

// lockFile takes an exclusive lock on the file at path (created if missing) and returns the
// function that releases it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// copyFile copies the executable at src to dst.
func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Buffer collects the output of a process or server; it is safe for concurrent writers.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// stopTimeout is how long a stopped process has to exit after the interrupt before it is killed.
const stopTimeout = 10 * time.Second

// Process is a command started by [Start].
type Process struct {
	// Output receives the process's stdout and stderr.
	Output Buffer
}

// Start runs bin with args until the test ends: then it interrupts the process, kills it if it
// has not exited within 10 seconds, and logs its output if the test failed.
func Start(tb testing.TB, bin string, args ...string) *Process {
	tb.Helper()
	p := &Process{}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &p.Output, &p.Output
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(stopTimeout):
			_ = cmd.Process.Kill()
			<-done
		}
		if tb.Failed() {
			tb.Logf("%s output:\n%s", filepath.Base(bin), p.Output.String())
		}
	})
	return p
}

// WaitFor waits up to 30 seconds for re to match the process's output and returns the match.
func (p *Process) WaitFor(tb testing.TB, re *regexp.Regexp) string {
	tb.Helper()
	var match string
	poll.Eventually(tb, 30*time.Second, "output matching "+re.String(), func() bool {
		match = re.FindString(p.Output.String())
		return match != ""
	})
	return match
}
