package pgstore

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultStatementTimeout is Options.StatementTimeout when it is zero.
const DefaultStatementTimeout = 30 * time.Second

// statementTimeoutMillis is the statement_timeout of a transaction started under ctx: the
// time left before ctx's deadline, at most the Store's StatementTimeout, at least 1 ms (0 would
// mean "no limit"). So a statement cannot outlive the call that started it even if the
// cancel request that pgx sends when ctx ends is lost.
func (s *Store) statementTimeoutMillis(ctx context.Context) string {
	limit := s.statementTimeout
	if deadline, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(deadline))
	}
	return strconv.FormatInt(max(limit.Milliseconds(), 1), 10)
}

// cancelOnContextEnd makes a connection of cfg send PostgreSQL a cancel request as soon as the
// context of a running statement ends, so the server stops the statement at its next
// interrupt check and the connection stays in the pool; the socket is closed only if the
// server has not answered a second later. (pgx's default closes the socket at once and
// cancels from a new connection, so every cancelled call also costs a reconnect.) A
// function that checks for interrupts only when it returns, such as position() on bytea,
// runs to its end whatever happens: its work must be bounded before it starts (see
// fileio.Splicer's maxScan).
func cancelOnContextEnd(cfg *pgxpool.Config) {
	cfg.ConnConfig.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: time.Second}
	}
}
