// Package pgpool opens the connection pools of the PostgreSQL backends (fileio/pgstore and
// search/pgindex) and words their connection failures the same way: a database that does not
// exist or refuses the credentials is a configuration error naming the database, an outage is
// UNAVAILABLE, anything else INTERNAL.
package pgpool

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/pgoutage"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SQLSTATEs that mean the database URL names something the server does not have.
const (
	invalidCatalogName = "3D000" // the database does not exist
	invalidPassword    = "28P01"
	invalidAuthSpec    = "28000" // no pg_hba.conf entry, role does not exist, …
)

// Options are the pool settings the backends share. The zero value keeps pgxpool's defaults.
type Options struct {
	// MaxConns is the pool size; 0 keeps pgxpool's default (the larger of 4 and the number of
	// CPUs, or pool_max_conns in the URL). Negative is INVALID_CONFIG.
	MaxConns int32
}

// Open parses databaseURL (a PostgreSQL URL or key=value string, see pgxpool.ParseConfig) and
// returns a pool over it; pkg ("pgstore", "pgindex") prefixes the messages. It opens no
// connection yet. Every connection of the pool cancels a running statement in the server when
// the statement's context ends (see cancelOnContextEnd). Its errors are INVALID_CONFIG and
// never contain the password.
func Open(ctx context.Context, pkg, databaseURL string, opts Options) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, agentfiles.WrapError(agentfiles.CodeInvalidConfig,
			pkg+": the database URL is not valid: "+err.Error()+"; use a URL such as postgres://user:password@host:5432/dbname", "", err)
	}
	switch {
	case opts.MaxConns < 0:
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, pkg+": MaxConns must be >= 0 (0: pgxpool's default)", "MaxConns")
	case opts.MaxConns > 0:
		cfg.MaxConns = opts.MaxConns
		cfg.MinConns = min(cfg.MinConns, cfg.MaxConns)
	}
	cancelOnContextEnd(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, agentfiles.WrapError(agentfiles.CodeInvalidConfig, pkg+": connecting: "+err.Error(), "", err)
	}
	return pool, nil
}

// Err returns err, a failure while doing what ("migrating the schema") on a fresh pool, as an
// *agentfiles.Error prefixed by pkg: INVALID_CONFIG naming the database when it does not exist
// and naming the user when the server refuses the credentials (the URL must change), UNAVAILABLE
// when the database cannot be reached (retry later), INTERNAL for anything else. An
// *agentfiles.Error or a context's error passes through unchanged; nil stays nil.
func Err(pkg, what string, err error) error {
	if err == nil {
		return nil
	}
	if cerr := agentfiles.ContextError(err); cerr != nil {
		return cerr
	}
	var coded *agentfiles.Error
	if errors.As(err, &coded) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		db, user, where := "", "", ""
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) && ce.Config != nil {
			db, user = ce.Config.Database, ce.Config.User
			where = fmt.Sprintf(" on %s:%d", ce.Config.Host, ce.Config.Port)
		}
		switch pe.Code {
		case invalidCatalogName:
			if db == "" {
				return agentfiles.WrapError(agentfiles.CodeInvalidConfig,
					fmt.Sprintf("%s: %s: the database does not exist (%s); create it or name an existing one in the database URL", pkg, what, pe.Message), "", err)
			}
			return agentfiles.WrapError(agentfiles.CodeInvalidConfig,
				fmt.Sprintf("%s: the database %q does not exist%s; create it (createdb %s) or name an existing database in the database URL", pkg, db, where, db), "", err)
		case invalidPassword, invalidAuthSpec:
			return agentfiles.WrapError(agentfiles.CodeInvalidConfig,
				fmt.Sprintf("%s: PostgreSQL%s refused the connection as user %q to database %q: %s; fix the user or password in the database URL", pkg, where, user, db, pe.Message), "", err)
		}
	}
	code := agentfiles.CodeInternal
	if pgoutage.Is(err) {
		code = agentfiles.CodeUnavailable
	}
	return agentfiles.WrapError(code, pkg+": "+what+": "+err.Error(), "", err)
}

// cancelOnContextEnd makes a connection of cfg send PostgreSQL a cancel request as soon as the
// context of a running statement ends, so the server stops the statement at its next
// interrupt check and the connection stays in the pool; the socket is closed only if the
// server has not answered a second later. (pgx's default closes the socket at once and
// cancels from a new connection, so every cancelled call also costs a reconnect.) A
// function that checks for interrupts only when it returns, such as position() on bytea,
// runs to its end whatever happens: its work must be bounded before it starts.
func cancelOnContextEnd(cfg *pgxpool.Config) {
	cfg.ConnConfig.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: time.Second}
	}
}
