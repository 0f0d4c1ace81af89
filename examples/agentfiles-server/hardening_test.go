package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/agentfiles/agentfiles/internal/redistest"
	"github.com/agentfiles/agentfiles/search/indextest"
)

// A client trickling its request (headers, or the body of an
// authenticated call) held the connection for as long as it kept sending. With
// -read-header-timeout and -read-timeout it is closed when the timeout passes.
func TestTricklingClientIsCutOff(t *testing.T) {
	const timeout = 500 * time.Millisecond
	srv := startServer(t, "-read-header-timeout", timeout.String(), "-read-timeout", (2 * timeout).String(), "-log-level", "off")
	tests := []struct {
		name    string
		request string // sent whole; then one byte every 100ms
		limit   time.Duration
	}{
		{"headers", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ", timeout},
		{"body", "POST /tools/file_list HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer dev\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"project\":\"", 2 * timeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.base[len("http://"):])
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			start := time.Now()
			closed := make(chan time.Duration, 1)
			go func() {
				// Read until the server closes the connection (it may first answer).
				_, _ = io.Copy(io.Discard, conn)
				closed <- time.Since(start)
			}()
			if _, err := conn.Write([]byte(tc.request)); err != nil {
				t.Fatal(err)
			}
			for {
				select {
				case took := <-closed:
					if took > tc.limit+2*time.Second {
						t.Fatalf("connection closed after %v, want about %v", took, tc.limit)
					}
					return
				case <-time.After(100 * time.Millisecond):
				}
				if time.Since(start) > 10*time.Second {
					t.Fatalf("a client trickling a byte every 100ms still holds its connection after %v (timeout %v)", time.Since(start), tc.limit)
				}
				_, _ = conn.Write([]byte{'a'})
			}
		})
	}
}

func TestTimeoutFlags(t *testing.T) {
	c, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.readHeaderTimeout <= 0 || c.readTimeout <= 0 || c.writeTimeout <= 0 || c.idleTimeout <= 0 {
		t.Errorf("defaults: %+v", c)
	}
	if _, err := parseFlags([]string{"-idle-timeout", "0s"}, io.Discard); err == nil {
		t.Error("-idle-timeout 0s accepted")
	}
}

type health struct {
	Status   string                   `json:"status"`
	Backends map[string]backendStatus `json:"backends"`
}

func getHealth(t *testing.T, base string) (int, health) {
	t.Helper()
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, h
}

func TestHealthzInMemory(t *testing.T) {
	srv := startServer(t, "-log-level", "off")
	status, h := getHealth(t, srv.base)
	if status != http.StatusOK || h.Status != "ok" || h.Backends["store"] != (backendStatus{Kind: "memory", Status: "ok"}) || h.Backends["index"].Status != "ok" {
		t.Errorf("healthz = %d %+v", status, h)
	}
}

// /healthz reports PostgreSQL down (it once said ok while the database was gone).
func TestHealthzReportsPostgresDown(t *testing.T) {
	pg, dbURL := pgtest.DedicatedDatabase(t)
	srv := startServer(t, "-database-url", dbURL, "-log-level", "off")
	status, h := getHealth(t, srv.base)
	if status != http.StatusOK || h.Status != "ok" || h.Backends["store"] != (backendStatus{Kind: "postgresql", Status: "ok"}) || h.Backends["index"] != (backendStatus{Kind: "postgresql", Status: "ok"}) {
		t.Fatalf("healthz with PostgreSQL up = %d %+v", status, h)
	}
	if err := pg.Kill(); err != nil {
		t.Fatal(err)
	}
	// A backend of the killed postmaster may serve a pooled connection for a moment after the
	// kill; new connections are refused at once.
	status, h = getHealth(t, srv.base)
	if status != http.StatusServiceUnavailable || h.Status != "unavailable" {
		t.Errorf("healthz with PostgreSQL killed = %d %+v, want 503", status, h)
	}
	for deadline := time.Now().Add(15 * time.Second); h.Backends["store"].Status != "down" || h.Backends["index"].Status != "down"; {
		if time.Now().After(deadline) {
			t.Fatalf("healthz with PostgreSQL killed = %d %+v, want store and index down", status, h)
		}
		time.Sleep(100 * time.Millisecond)
		status, h = getHealth(t, srv.base)
	}
	if status != http.StatusServiceUnavailable || h.Backends["store"].Error == "" {
		t.Errorf("healthz with PostgreSQL killed = %d %+v", status, h)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := pg.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, h = getHealth(t, srv.base)
		if status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("healthz after the restart = %d %+v", status, h)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestHealthzReportsRedisDown(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rs, err := redistest.Start(ctx)
	if err != nil {
		redistest.New(t) // skips, or fails when services are required
		t.Fatal(err)
	}
	t.Cleanup(rs.Close)
	addr := rs.Addr()
	srv := startRedisServer(t, addr, indextest.NewEmbeddingServer(t, 8))
	status, h := getHealth(t, srv.base)
	if status != http.StatusOK || h.Backends["redis"] != (backendStatus{Kind: "redis", Status: "ok"}) {
		t.Fatalf("healthz with Redis up = %d %+v", status, h)
	}
	rs.Close()
	status, h = getHealth(t, srv.base)
	if status != http.StatusServiceUnavailable || h.Status != "unavailable" || h.Backends["redis"].Status != "down" || h.Backends["store"].Status != "ok" {
		t.Errorf("healthz with Redis stopped = %d %+v, want 503 with redis down", status, h)
	}
}

// TestHealthzRunsOneRoundAtATime: /healthz needs no token and its PostgreSQL check opens a
// connection, so a flood of requests opened as many connections as it sent (issue 41: every
// endpoint is bounded). Requests that arrive while a round of checks runs wait for it and share
// its answer.
func TestHealthzRunsOneRoundAtATime(t *testing.T) {
	const requests = 50
	var rounds, inFlight, mostInFlight atomic.Int32
	release := make(chan struct{})
	check := func(ctx context.Context) error {
		rounds.Add(1)
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := mostInFlight.Load(); n > m && !mostInFlight.CompareAndSwap(m, n); m = mostInFlight.Load() {
		}
		<-release
		return nil
	}
	health := healthHandler([]backendCheck{{name: "store", kind: "postgresql", check: check}}, slog.New(slog.DiscardHandler))
	var arrived atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		health.ServeHTTP(w, r)
	}))
	defer srv.Close()
	var wg sync.WaitGroup
	codes := make(chan int, requests)
	for range requests {
		wg.Go(func() {
			resp, err := http.Get(srv.URL)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		})
	}
	poll.Eventually(t, 30*time.Second, "every request waiting for the round of checks", func() bool { return arrived.Load() == requests })
	close(release)
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != http.StatusOK {
			t.Errorf("a /healthz answer: %d", code)
		}
	}
	if got := rounds.Load(); got != 1 || mostInFlight.Load() != 1 {
		t.Errorf("%d requests at once ran %d rounds of checks, %d at a time; want one", requests, got, mostInFlight.Load())
	}
}
