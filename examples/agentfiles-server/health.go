package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// healthTimeout bounds each backend's check in /healthz.
const healthTimeout = 2 * time.Second

// backendCheck is one backend /healthz reports: the file store, the search index, Redis.
type backendCheck struct {
	name  string                          // "store", "index", "redis"
	kind  string                          // "postgresql", "memory", "redis"
	check func(ctx context.Context) error // nil: in process, always up
}

// backendStatus is one entry of the /healthz answer.
type backendStatus struct {
	Kind   string `json:"kind"`
	Status string `json:"status"`          // "ok" or "down"
	Error  string `json:"error,omitempty"` // why it is down, without addresses or credentials
}

// healthHandler answers GET /healthz with every backend's status:
//
//	{"status": "ok", "backends": {"store": {"kind": "postgresql", "status": "ok"}, ...}}
//
// 200 when all are up; 503 with "status": "unavailable" when one is down. The checks run
// concurrently, each bounded by healthTimeout; a failure's cause goes to the log only. Anyone
// may ask, and a PostgreSQL check opens a connection, so requests that arrive while a round of
// checks runs wait for it and share its answer: however many ask at once, one round runs.
func healthHandler(checks []backendCheck, logger *slog.Logger) http.Handler {
	var h healthRounds
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		round, err := h.join(r.Context(), checks, logger)
		if err != nil {
			return // the client left
		}
		status, code := "ok", http.StatusOK
		if round.down {
			status, code = "unavailable", http.StatusServiceUnavailable
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(map[string]any{"status": status, "backends": round.statuses})
	})
}

// healthRound is one run of the checks; done is closed when statuses and down are set.
type healthRound struct {
	done     chan struct{}
	statuses map[string]backendStatus
	down     bool
}

// healthRounds runs at most one round of checks at a time.
type healthRounds struct {
	mu      sync.Mutex
	running *healthRound
}

// join returns the answer of the round running now, or of a new one it starts, or ctx's error
// when ctx ends first. A round does not depend on the request that started it: it runs to
// its end (healthTimeout) for everyone waiting.
func (h *healthRounds) join(ctx context.Context, checks []backendCheck, logger *slog.Logger) (*healthRound, error) {
	h.mu.Lock()
	round := h.running
	if round == nil {
		round = &healthRound{done: make(chan struct{})}
		h.running = round
		go func() {
			round.statuses, round.down = runChecks(checks, logger)
			h.mu.Lock()
			h.running = nil
			h.mu.Unlock()
			close(round.done)
		}()
	}
	h.mu.Unlock()
	select {
	case <-round.done:
		return round, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// runChecks runs every check concurrently, each bounded by healthTimeout, and returns their
// statuses and whether one is down.
func runChecks(checks []backendCheck, logger *slog.Logger) (map[string]backendStatus, bool) {
	statuses := make(map[string]backendStatus, len(checks))
	var mu sync.Mutex
	var wg sync.WaitGroup
	down := false
	for _, c := range checks {
		wg.Go(func() {
			st := backendStatus{Kind: c.kind, Status: "ok"}
			if c.check != nil {
				ctx, cancel := context.WithTimeout(context.Background(), healthTimeout)
				err := c.check(ctx)
				cancel()
				if err != nil {
					st.Status, st.Error = "down", c.kind+" does not answer"
					logger.Warn("health check failed", "backend", c.name, "kind", c.kind, "error", err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			statuses[c.name] = st
			down = down || st.Status != "ok"
		})
	}
	wg.Wait()
	return statuses, down
}

// pgCheck is the /healthz check of PostgreSQL: a ping through the pool, and a new connection.
// The pool alone is not enough: after the postmaster dies, its backends can serve pooled
// connections for a while, although the server accepts no new ones.
func pgCheck(pool *pgxpool.Pool) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if err := pool.Ping(ctx); err != nil {
			return err
		}
		conn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig.Copy())
		if err != nil {
			return err
		}
		return conn.Close(ctx)
	}
}

// addBackend registers a backend for /healthz.
func (a *app) addBackend(name, kind string, check func(ctx context.Context) error) {
	a.backends = append(a.backends, backendCheck{name: name, kind: kind, check: check})
}
