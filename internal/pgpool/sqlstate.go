package pgpool

import (
	"errors"

	"github.com/agentfiles/agentfiles"
	"github.com/jackc/pgx/v5/pgconn"
)

// SQLSTATEs the backends treat specially (PostgreSQL's "Errors and Messages" appendix).
const (
	SQLLockNotAvailable      = "55P03" // lock_timeout expired
	SQLQueryCanceled         = "57014" // statement_timeout expired, or a cancel request
	SQLSerializationFailure  = "40001"
	SQLDeadlockDetected      = "40P01"
	SQLStringTooLong         = "22001"
	SQLCharNotInRepertoire   = "22021" // invalid UTF-8 or NUL in a text value
	SQLInsufficientPrivilege = "42501"
)

// sqlstateCodes is the one classification of PostgreSQL failures, shared by fileio/pgstore
// and search/pgindex so that one failure has one code whichever backend meets it.
var sqlstateCodes = map[string]agentfiles.Code{
	SQLLockNotAvailable:      agentfiles.CodeResourceBusy,
	SQLQueryCanceled:         agentfiles.CodeTimeout,
	SQLSerializationFailure:  agentfiles.CodeResourceBusy,
	SQLDeadlockDetected:      agentfiles.CodeResourceBusy,
	SQLStringTooLong:         agentfiles.CodeInvalidArgument,
	SQLCharNotInRepertoire:   agentfiles.CodeInvalidArgument,
	SQLInsufficientPrivilege: agentfiles.CodeInvalidConfig,
}

// Classify returns the SQLSTATE of the PostgreSQL error in err's chain and the code both
// backends give it; ok is false when err carries no SQLSTATE of the table. query_canceled
// (57014) is TIMEOUT: the statement outlived statement_timeout. A cancel request sent because
// the caller's context ended is 57014 too, so callers check their context first
// (agentfiles.ContextError) and report CANCELED or TIMEOUT from it.
func Classify(err error) (sqlstate string, code agentfiles.Code, ok bool) {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return "", agentfiles.Code{}, false
	}
	code, ok = sqlstateCodes[pe.Code]
	return pe.Code, code, ok
}
