package pgstore

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
)

// listener keeps one dedicated connection (outside the pool) in LISTEN on jobsChannel and wakes
// every WaitForJobs on each notification. It starts with the first WaitForJobs and reconnects
// with backoff; while it is down, WaitForJobs waits at most the poll interval.
type listener struct {
	s *Store

	mu      sync.Mutex
	wake    chan struct{} // closed and replaced on every notification
	healthy bool          // LISTEN is active
	started bool
	cancel  context.CancelFunc
	done    chan struct{}
}

func (l *listener) init(s *Store) {
	l.s = s
	l.wake = make(chan struct{})
}

// state returns the channel the next notification closes and whether LISTEN is active,
// starting the listener on first use.
func (l *listener) state() (<-chan struct{}, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.started {
		l.started = true
		ctx, cancel := context.WithCancel(context.Background())
		l.cancel, l.done = cancel, make(chan struct{})
		go l.run(ctx)
	}
	return l.wake, l.healthy
}

func (l *listener) broadcast(healthy bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.healthy = healthy
	close(l.wake)
	l.wake = make(chan struct{})
}

func (l *listener) stop() {
	l.mu.Lock()
	cancel, done := l.cancel, l.done
	l.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

func (l *listener) run(ctx context.Context) {
	defer close(l.done)
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		err := l.listenOnce(ctx, func() { backoff = 50 * time.Millisecond })
		if ctx.Err() != nil {
			return
		}
		l.broadcast(false)
		l.s.logger.LogAttrs(ctx, slog.LevelWarn, "pgstore: LISTEN connection lost; workers poll until it is back",
			slog.String("error", err.Error()), slog.Duration("retry_in", backoff))
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// listenOnce connects, LISTENs and relays notifications until the connection fails.
func (l *listener) listenOnce(ctx context.Context, connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, l.s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+jobsChannel); err != nil {
		return err
	}
	connected()
	// Wake everyone: notifications sent while we were not listening are lost.
	l.broadcast(true)
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		l.broadcast(true)
	}
}

// sqlNextAvailable is how many microseconds until the earliest job becomes claimable (<= 0:
// one is claimable now; NULL: no jobs).
const sqlNextAvailable = `SELECT (EXTRACT(EPOCH FROM min(available_at) - statement_timestamp()) * 1000000)::bigint
FROM mcp_file_index_jobs WHERE status = 'pending'`

// WaitForJobs implements driver.Outbox. It returns at once when a job is claimable; otherwise
// when a NOTIFY announces a new or released job (from any process), when the earliest retry
// delay or lease runs out, after maxWait, or — while the LISTEN connection is down — after the
// poll interval. It returns ctx.Err() when ctx ends first.
func (s *Store) WaitForJobs(ctx context.Context, maxWait time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	wake, healthy := s.listener.state() // before looking, so no notification falls in between
	wait := maxWait
	if !healthy && s.pollInterval < wait {
		wait = s.pollInterval
	}
	var nextMicros *int64
	if err := s.pool.QueryRow(ctx, sqlNextAvailable).Scan(&nextMicros); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// The database is unreachable: behave like a poll.
		if s.pollInterval < wait {
			wait = s.pollInterval
		}
	} else if nextMicros != nil && time.Duration(*nextMicros)*time.Microsecond < wait {
		wait = time.Duration(*nextMicros) * time.Microsecond
	}
	return driver.WaitForSignal(ctx, wake, wait)
}
