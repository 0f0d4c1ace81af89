package agentfiles_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/google/go-cmp/cmp"
)

func TestErrorCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, "INTERNAL"}, // the zero Code prints as INTERNAL
		{"coded", agentfiles.NewError(agentfiles.CodeNotFound, "no such file", "/a"), "NOT_FOUND"},
		{"wrapped", fmt.Errorf("reading: %w", agentfiles.ErrRateLimited), "RATE_LIMITED"},
		{"uncoded", io.ErrUnexpectedEOF, "INTERNAL"},
		{"deadline", fmt.Errorf("query: %w", context.DeadlineExceeded), "TIMEOUT"},
		{"canceled", context.Canceled, "CANCELED"},
		{"coded beats context", agentfiles.WrapError(agentfiles.CodeUnavailable, "database down", "", context.DeadlineExceeded), "UNAVAILABLE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, agentfiles.ErrorCode(tc.err).String()); diff != "" {
				t.Errorf("ErrorCode (-want +got):\n%s", diff)
			}
		})
	}
	if got := agentfiles.ErrorCode(nil); got != (agentfiles.Code{}) {
		t.Errorf("ErrorCode(nil) = %v, want the zero Code", got)
	}
}

func TestErrorIsComparesCodesOnly(t *testing.T) {
	// Two errors made independently (as two packages would) with the same code match; the
	// message and argument do not matter.
	a := agentfiles.NewError(agentfiles.NewCode("SAME", agentfiles.KindInvalid), "first", "x")
	b := agentfiles.NewError(agentfiles.NewCode("SAME", agentfiles.KindInvalid), "second", "y")
	if !errors.Is(fmt.Errorf("outer: %w", a), b) {
		t.Error("errors.Is across independently declared equal codes = false, want true")
	}
	if errors.Is(a, agentfiles.ErrNotFound) {
		t.Error("errors.Is(SAME, ErrNotFound) = true, want false")
	}
	cause := io.EOF
	w := agentfiles.WrapError(agentfiles.CodeInternal, "read failed", "", cause)
	if !errors.Is(w, io.EOF) {
		t.Error("WrapError does not unwrap to its cause")
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		err  *agentfiles.Error
		want string
	}{
		{agentfiles.NewError(agentfiles.CodeNotFound, "no such file; list the directory", "/a/b"), "NOT_FOUND: no such file; list the directory (/a/b)"},
		{agentfiles.NewError(agentfiles.CodeInvalidArgument, "the query is empty", ""), "INVALID_ARGUMENT: the query is empty"},
		{&agentfiles.Error{Message: "zero code"}, "INTERNAL: zero code"},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, tc.err.Error()); diff != "" {
			t.Errorf("Error() (-want +got):\n%s", diff)
		}
	}
}

func TestRetryable(t *testing.T) {
	var got []string
	for _, c := range agentfiles.SharedCodes() {
		if c.Retryable() {
			got = append(got, c.String())
		}
	}
	want := []string{"RATE_LIMITED", "RESOURCE_BUSY", "UNAVAILABLE", "CREDENTIAL_UNAVAILABLE", "TIMEOUT", "MODEL_ERROR"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("retryable shared codes (-want +got):\n%s", diff)
	}
}

func TestKindNames(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range agentfiles.Kinds() {
		name := k.String()
		if name == "" || name == "unknown kind" || seen[name] {
			t.Errorf("kind %d has name %q (empty, unknown or repeated)", k, name)
		}
		seen[name] = true
	}
}

func TestAuthContext(t *testing.T) {
	ac := agentfiles.NewAuthContext("sk-secret", "ada")
	if len(ac.APIKeyHash) != 64 {
		t.Fatalf("APIKeyHash %q is not hex SHA-256", ac.APIKeyHash)
	}
	for _, s := range []string{ac.String(), fmt.Sprintf("%v %+v %#v", ac, ac, ac)} {
		if strings.Contains(s, "sk-secret") {
			t.Errorf("AuthContext printed its key: %s", s)
		}
	}
	ctx := agentfiles.WithAuth(context.Background(), ac)
	got, ok := agentfiles.AuthFromContext(ctx)
	if !ok || got != ac {
		t.Errorf("AuthFromContext = %v, %v; want the stored identity", got, ok)
	}
	if _, ok := agentfiles.AuthFromContext(context.Background()); ok {
		t.Error("AuthFromContext on a bare context reported an identity")
	}
}

// A key is its own tenant unless the authenticator names one; named tenants are validated.
func TestAuthContextTenant(t *testing.T) {
	own := agentfiles.NewAuthContext("k1", "")
	named := agentfiles.NewAuthContext("k2", "").WithTenant("acme")
	got := []string{own.TenantID(), named.TenantID(), named.APIKeyHash, agentfiles.AuthContext{APIKeyHash: "h"}.TenantID(), own.WithTenant("").TenantID()}
	want := []string{own.APIKeyHash, "acme", agentfiles.NewAuthContext("k2", "").APIKeyHash, "h", own.APIKeyHash}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tenants (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		tenant string
		ok     bool
	}{{"acme", true}, {own.APIKeyHash, true}, {"team-1.prod_eu", true}, {"", false}, {"a/b", false}, {"ä", false}, {strings.Repeat("x", 65), false}} {
		if err := agentfiles.ValidateTenant(tc.tenant); (err == nil) != tc.ok || (err != nil && agentfiles.ErrorCode(err) != agentfiles.CodeInvalidConfig) {
			t.Errorf("ValidateTenant(%q) = %v, want ok %v or INVALID_CONFIG", tc.tenant, err, tc.ok)
		}
	}
}
