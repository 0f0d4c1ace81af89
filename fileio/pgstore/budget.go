package pgstore

import (
	"context"
	"strconv"
	"time"
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
