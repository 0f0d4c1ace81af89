package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/jackc/pgx/v5"
)

// Server is a throwaway PostgreSQL cluster. Create it with [Start] (or [Dedicated] in a test)
// and stop it with [Server.Close]. It is safe for concurrent use.
type Server struct {
	bin     string // directory holding initdb and postgres
	dir     string // root of everything the cluster writes; removed by Close
	dataDir string
	port    int
	cred    *syscall.Credential // nil: run as ourselves

	mu     sync.Mutex
	cmd    *exec.Cmd     // the running postmaster, nil when stopped
	exited chan struct{} // closed when cmd has exited
	closed bool
}

// startTimeout bounds initdb plus the server's start-up (crash recovery included).
const startTimeout = 60 * time.Second

// Start creates and starts a new cluster. It returns an error wrapping a message that names the
// Debian package postgresql when the binaries are missing.
func Start(ctx context.Context) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	cred, err := runAs()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "agentfiles-pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, dir: dir, dataDir: filepath.Join(dir, "data"), cred: cred}
	if err := s.initdb(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// A free port can be taken by someone else between probing and binding: retry a few times.
	for attempt := 0; ; attempt++ {
		s.port, err = freePort()
		if err == nil {
			err = s.start(ctx)
		}
		if err == nil {
			return s, nil
		}
		if attempt == 2 || ctx.Err() != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
}

// Port is the loopback TCP port the server listens on; it stays the same across Restart.
func (s *Server) Port() int { return s.port }

// URL returns a connection URL for the named database as the superuser postgres.
func (s *Server) URL(database string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User("postgres"),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)),
		Path:     "/" + database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// CreateDatabase creates a new, empty database with a random name and returns its URL.
func (s *Server) CreateDatabase(ctx context.Context) (string, error) {
	return createDatabase(ctx, s.URL("postgres"), "")
}

func (s *Server) initdb(ctx context.Context) error {
	if err := os.MkdirAll(s.dataDir, 0o700); err != nil {
		return err
	}
	if err := s.chown(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, "initdb"),
		"-D", s.dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	cmd.Dir = s.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("initdb failed: %w\n%s", err, tail(out))
	}
	return nil
}

// chown hands the cluster's directory to the user the cluster runs as.
func (s *Server) chown() error {
	if s.cred == nil {
		return nil
	}
	return filepath.Walk(s.dir, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(s.cred.Uid), int(s.cred.Gid))
	})
}

// start runs the postmaster and waits until it accepts connections.
func (s *Server) start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("pgtest: server is closed")
	}
	if s.cmd != nil {
		return errors.New("pgtest: server is already running")
	}
	logPath := filepath.Join(s.dir, "postgres.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := exec.Command(filepath.Join(s.bin, "postgres"),
		"-D", s.dataDir,
		"-p", strconv.Itoa(s.port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories="+s.dir,
		"-c", "fsync=off",
		"-c", "full_page_writes=off",
		"-c", "max_connections=300",
		"-c", "shared_buffers=32MB",
		"-c", "max_wal_size=1GB",
		"-c", "checkpoint_timeout=30min",
		"-c", "log_min_messages=warning",
		"-c", "log_min_error_statement=panic",
	)
	cmd.Dir = s.dir
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	// Own process group: Kill takes the postmaster and every backend down at once. Parent-death
	// signal: a test binary that dies does not leave the cluster behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting postgres: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	s.cmd, s.exited = cmd, exited

	var lastErr error
	err = poll.Until(ctx, startTimeout, "postgres accepting connections", func() (bool, error) {
		select {
		case <-exited:
			log, _ := os.ReadFile(logPath)
			return false, fmt.Errorf("postgres exited during start-up: %s", tail(log))
		default:
		}
		conn, err := pgx.Connect(ctx, s.URL("postgres"))
		if err != nil {
			lastErr = err
			return false, nil
		}
		conn.Close(ctx)
		return true, nil
	})
	select {
	case <-exited:
		s.cmd, s.exited = nil, nil
		return err
	default:
	}
	if err != nil {
		s.killLocked()
		return fmt.Errorf("%w (last attempt: %v)", err, lastErr)
	}
	return nil
}

// Kill simulates a crash: SIGKILL to the postmaster and all its backends. It returns when they
// have exited. Committed data survives (it is in the operating system's page cache).
func (s *Server) Kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return errors.New("pgtest: server is not running")
	}
	s.killLocked()
	return nil
}

func (s *Server) killLocked() {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.exited
	s.cmd, s.exited = nil, nil
}

// Restart starts the cluster again on the same port after Kill (running crash recovery) and
// waits until it accepts connections.
func (s *Server) Restart(ctx context.Context) error {
	// Backends of a killed postmaster may take a moment to exit; until then the new postmaster
	// refuses to start because the old shared memory is still attached. Retry until the deadline.
	var lastErr error
	err := poll.Until(ctx, startTimeout, "postgres restarting", func() (bool, error) {
		lastErr = s.start(ctx)
		return lastErr == nil, nil
	})
	if err != nil && lastErr != nil {
		return fmt.Errorf("%w: %v", err, lastErr)
	}
	return err
}

// Close stops the cluster (fast shutdown, then SIGKILL if it lingers) and removes its files.
// Calling Close more than once is harmless.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.cmd != nil {
		// SIGINT is PostgreSQL's "fast shutdown": abort sessions, checkpoint, exit.
		syscall.Kill(s.cmd.Process.Pid, syscall.SIGINT)
		select {
		case <-s.exited:
			s.cmd, s.exited = nil, nil
		case <-time.After(10 * time.Second):
			s.killLocked()
		}
	}
	return os.RemoveAll(s.dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail keeps the last few lines of a tool's output for an error message.
func tail(b []byte) string {
	const max = 2000
	b = bytes.TrimSpace(b)
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return string(b)
}
