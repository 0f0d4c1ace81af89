package pgstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

// TestMissingPrivileges opens a store as a role that lacks what creating the schema takes, on a
// fresh database of a throwaway cluster: no CREATE on the schema public (PostgreSQL 15 and later
// no longer grant it to every role), then no right to create the pg_trgm extension (CREATE on
// the database). Each is INVALID_CONFIG naming the privilege and the statement that grants it;
// running that statement lets the next Open through.
func TestMissingPrivileges(t *testing.T) {
	adminURL := pgtest.New(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	role := "restricted_" + hex.EncodeToString(b[:])
	u, _ := url.Parse(adminURL)
	db := strings.TrimPrefix(u.Path, "/")
	exec := func(sql string) {
		t.Helper()
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec("CREATE ROLE " + role + " LOGIN")
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "DROP OWNED BY "+role)
		_, _ = admin.Exec(context.Background(), "DROP ROLE "+role)
	})
	exec("REVOKE CREATE ON SCHEMA public FROM PUBLIC") // as PostgreSQL 15 and later have it
	u.User = url.User(role)
	roleURL := u.String()

	steps := []struct {
		name  string
		wants []string // in the message
		grant string   // the statement the message names, run before the next step
	}{
		{"no CREATE on schema public", []string{"CREATE on the schema", "GRANT CREATE ON SCHEMA public TO " + role + ";"}, "GRANT CREATE ON SCHEMA public TO " + role},
		{"no right to create pg_trgm", []string{"pg_trgm", "GRANT CREATE ON DATABASE " + db + " TO " + role + ";", "CREATE EXTENSION pg_trgm;"}, "GRANT CREATE ON DATABASE " + db + " TO " + role},
	}
	for _, st := range steps {
		s, err := pgstore.Open(ctx, roleURL, pgstore.Options{})
		if err == nil {
			s.Close()
			t.Fatalf("%s: Open succeeded", st.name)
		}
		if agentfiles.ErrorCode(err) != agentfiles.CodeInvalidConfig {
			t.Errorf("%s: %v, want INVALID_CONFIG", st.name, err)
		}
		for _, want := range st.wants {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: the message lacks %q:\n%v", st.name, want, err)
			}
		}
		exec(st.grant)
	}
	s, err := pgstore.Open(ctx, roleURL, pgstore.Options{})
	if err != nil {
		t.Fatalf("Open after both grants: %v", err)
	}
	s.Close()
}
