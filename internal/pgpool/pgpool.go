// Package pgpool opens the connection pools of the PostgreSQL backends (fileio/pgstore and
// search/pgindex) and words their connection failures the same way: a database that does not
// exist or refuses the credentials is a configuration error naming the database, an outage is
// UNAVAILABLE, anything else INTERNAL.
package pgpool

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
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
	return errAs(pkg, what, "", "", err)
}

// PoolErr is Err for a failure on pool, whose user and database name the statement that grants a
// missing privilege (INVALID_CONFIG; see privilegeError).
func PoolErr(pool *pgxpool.Pool, pkg, what string, err error) error {
	user, db := "", ""
	if pool != nil {
		cc := pool.Config().ConnConfig
		user, db = cc.User, cc.Database
	}
	return errAs(pkg, what, user, db, err)
}

func errAs(pkg, what, userOf, database string, err error) error {
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
		case SQLInsufficientPrivilege:
			return privilegeError(pkg, what, cmp.Or(user, userOf), cmp.Or(db, database), pe, err)
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

// privilegeError is the INVALID_CONFIG of a statement the role of the database URL may not run
// (SQLSTATE 42501): it names the privilege that is missing and the statement that grants it,
// for the two a fresh database meets when the schema is created — CREATE on a schema (which
// PostgreSQL 15 no longer grants on public to every role) and the right to create the pg_trgm
// extension (CREATE on the database, for a trusted extension).
func privilegeError(pkg, what, user, database string, pe *pgconn.PgError, err error) error {
	role := cmp.Or(user, "the_role")
	dbName := cmp.Or(database, "the_database")
	var fix string
	switch msg := pe.Message; {
	case strings.Contains(msg, "extension"):
		ext := quotedName(msg, "pg_trgm")
		fix = fmt.Sprintf("the role %q may not create the extension %s: grant it CREATE on the database (GRANT CREATE ON DATABASE %s TO %s;), "+
			"or create the extension once as a superuser (CREATE EXTENSION %s;)", role, ext, quoteIdent(dbName), quoteIdent(role), ext)
	case strings.Contains(msg, "schema"):
		schema := lastWord(msg, "public")
		fix = fmt.Sprintf("the role %q may not create tables in the schema %s (PostgreSQL 15 and later no longer let every role create in public): "+
			"grant it CREATE on the schema (GRANT CREATE ON SCHEMA %s TO %s;), or make it the database's owner (ALTER DATABASE %s OWNER TO %s;)",
			role, schema, quoteIdent(schema), quoteIdent(role), quoteIdent(dbName), quoteIdent(role))
	default:
		fix = fmt.Sprintf("the role %q lacks a privilege (%s); grant it to the role, or connect as the database's owner", role, msg)
	}
	return agentfiles.WrapError(agentfiles.CodeInvalidConfig, fmt.Sprintf("%s: %s: %s", pkg, what, fix), "", err)
}

// quotedName returns the first double-quoted name in msg, or def.
func quotedName(msg, def string) string {
	if _, rest, ok := strings.Cut(msg, `"`); ok {
		if name, _, ok := strings.Cut(rest, `"`); ok && name != "" {
			return name
		}
	}
	return def
}

// lastWord returns the last word of msg ("permission denied for schema public": public), or def.
func lastWord(msg, def string) string {
	if f := strings.Fields(msg); len(f) > 0 {
		return strings.Trim(f[len(f)-1], `"`)
	}
	return def
}

// quoteIdent quotes a SQL identifier when it needs it.
func quoteIdent(name string) string {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		}
	}
	return name
}
