// Package pgpool opens the connection pools of the PostgreSQL backends (fileio/pgstore and
// search/pgindex) and words their connection failures the same way: a database that does not
// exist or refuses the credentials is a configuration error naming the database, an outage is
// UNAVAILABLE, anything else INTERNAL.
package pgpool

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/pgoutage"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SQLSTATEs that mean the database URL names something the server does not have.
const (
	invalidCatalogName = "3D000" // the database does not exist
	invalidPassword    = "28P01"
	invalidAuthSpec    = "28000" // no pg_hba.conf entry, role does not exist, …
)

// Open parses databaseURL (a PostgreSQL URL or key=value string, see pgxpool.ParseConfig) and
// returns a pool over it; pkg ("pgstore", "pgindex") prefixes the messages. It opens no
// connection yet. Its errors are INVALID_CONFIG and never contain the password.
func Open(ctx context.Context, pkg, databaseURL string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, agentfiles.WrapError(agentfiles.CodeInvalidConfig,
			pkg+": the database URL is not valid: "+err.Error()+"; use a URL such as postgres://user:password@host:5432/dbname", "", err)
	}
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
	var coded *agentfiles.Error
	if errors.As(err, &coded) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
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
