package redistest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/poll"
)

// EnvRequireServices names the environment variable that turns a missing redis-server into a
// test failure instead of a skip.
const EnvRequireServices = "AGENTFILES_REQUIRE_SERVICES"

const startTimeout = 20 * time.Second

// Server is a running throwaway redis-server. It is safe for concurrent use.
type Server struct {
	addr   string
	dir    string // working directory; nothing is persisted there
	cmd    *exec.Cmd
	exited chan struct{}
	once   sync.Once
}

// New starts a server for this test and stops it when the test ends. It returns the address
// ("127.0.0.1:PORT"). Without redis-server the test is skipped, or failed when
// AGENTFILES_REQUIRE_SERVICES=1.
func New(tb testing.TB) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	srv, err := Start(ctx)
	if err != nil {
		if os.Getenv(EnvRequireServices) == "1" {
			tb.Fatalf("redistest: Redis is required (%s=1) but unavailable: %v", EnvRequireServices, err)
		}
		tb.Skipf("redistest: skipping, Redis unavailable: %v", err)
	}
	tb.Cleanup(srv.Close)
	return srv.Addr()
}

// Start runs a new redis-server on a free loopback port and waits until it answers PING.
func Start(ctx context.Context) (*Server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, errors.New("redis-server not found on PATH; install the Debian package redis-server (apt-get install redis-server)")
	}
	// A free port can be taken between probing and binding: retry a few times.
	for attempt := 0; ; attempt++ {
		srv, err := start(ctx, bin)
		if err == nil || attempt == 2 || ctx.Err() != nil {
			return srv, err
		}
	}
}

func start(ctx context.Context, bin string) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir, err := os.MkdirTemp("", "agentfiles-redistest-")
	if err != nil {
		return nil, err
	}
	var out cmdtest.Buffer
	cmd := exec.Command(bin,
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--loglevel", "warning",
		"--dir", dir,
	)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting redis-server: %w", err)
	}
	s := &Server{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir, cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(s.exited) }()
	errExited := errors.New("redis-server exited during start-up")
	err = poll.Until(ctx, startTimeout, "redis-server answers PING", func() (bool, error) {
		select {
		case <-s.exited:
			return false, errExited
		default:
			return ping(s.addr) == nil, nil
		}
	})
	switch {
	case errors.Is(err, errExited):
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: %s", errExited, out.String())
	case err != nil:
		s.Close()
		return nil, err
	}
	return s, nil
}

// Addr is the server's "127.0.0.1:PORT" address.
func (s *Server) Addr() string { return s.addr }

// Close kills the server and waits for it to exit. Calling it more than once is harmless.
func (s *Server) Close() {
	s.once.Do(func() {
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
		os.RemoveAll(s.dir)
	})
}

// ping sends an inline PING and expects +PONG.
func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("unexpected PING reply %q", line)
	}
	return nil
}
