package pgoutage_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/pgoutage"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestIs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, refused := pgx.Connect(ctx, "postgres://u@127.0.0.1:1/db?sslmode=disable&connect_timeout=2")
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", refused, true},
		{"reset", fmt.Errorf("reading: %w", syscall.ECONNRESET), true},
		{"EOF", fmt.Errorf("receiving: %w", io.ErrUnexpectedEOF), true},
		{"conn closed", fmt.Errorf("querying: %w", pgconn.ErrConnClosed), true},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"starting up", &pgconn.PgError{Code: "57P03"}, true},
		{"too many connections", &pgconn.PgError{Code: "53300"}, true},
		{"connection exception class", &pgconn.PgError{Code: "08006"}, true},
		{"syntax error", &pgconn.PgError{Code: "42601"}, false},
		{"lock timeout", &pgconn.PgError{Code: "55P03"}, false},
		{"plain error", errors.New("scan: cannot convert"), false},
		{"canceled", context.Canceled, false},
	}
	for _, tc := range tests {
		if got := pgoutage.Is(tc.err); got != tc.want {
			t.Errorf("%s: Is(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
