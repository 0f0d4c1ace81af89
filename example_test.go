package agentfiles_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentfiles/agentfiles"
)

// A package declares the codes only it produces with NewCode; callers branch on codes with
// errors.Is or ErrorCode, whatever package the error came from.
func Example() {
	codeTooManyTerms := agentfiles.NewCode("TOO_MANY_TERMS", agentfiles.KindInvalid)
	lookup := func(path string) error {
		if path == "" {
			return agentfiles.NewError(codeTooManyTerms, "use at most 64 terms", "query")
		}
		return agentfiles.NewError(agentfiles.CodeNotFound, "no such file; list the directory to see what exists", path)
	}

	err := fmt.Errorf("loading: %w", lookup("/notes/todo.md"))
	fmt.Println(errors.Is(err, agentfiles.ErrNotFound))
	fmt.Println(agentfiles.ErrorCode(err), agentfiles.ErrorCode(err).Retryable())

	err = agentfiles.WrapError(agentfiles.CodeUnavailable, "the database is unreachable; retry shortly", "", errors.New("dial tcp: connection refused"))
	fmt.Println(err)
	fmt.Println(agentfiles.ErrorCode(err).Kind(), agentfiles.ErrorCode(err).Retryable())
	fmt.Println(agentfiles.ErrorCode(lookup("")))
	// Output:
	// true
	// NOT_FOUND false
	// UNAVAILABLE: the database is unreachable; retry shortly
	// unavailable true
	// TOO_MANY_TERMS
}

// Bindings authenticate a request once and put the identity in its context; services read it
// from there.
func ExampleWithAuth() {
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "ada"))
	ac, ok := agentfiles.AuthFromContext(ctx)
	fmt.Println(ok, ac.UserIdentity, ac.APIKeyHash[:12])
	fmt.Println(ac)
	// Output:
	// true ada f2d4b279b82a
	// AuthContext{tenant=f2d4b279b82a user="ada" api_key=<redacted>}
}

// ContextError turns an ended context into the one coded error every package returns for it.
func ExampleContextError() {
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-ctx.Done()
	err := agentfiles.ContextError(ctx.Err())
	fmt.Println(agentfiles.ErrorCode(err), errors.Is(err, context.DeadlineExceeded))
	fmt.Println(agentfiles.ContextError(errors.New("disk full")) == nil)
	// Output:
	// TIMEOUT true
	// true
}

// Two keys of one organisation share its files when the authenticator names one tenant for
// both; a key without a tenant is its own, the hash of the key.
func ExampleAuthContext_WithTenant() {
	k1 := agentfiles.NewAuthContext("key-1", "alice").WithTenant("acme")
	k2 := agentfiles.NewAuthContext("key-2", "bob").WithTenant("acme")
	solo := agentfiles.NewAuthContext("key-3", "carol")
	fmt.Println(k1.TenantID() == k2.TenantID(), solo.TenantID() == solo.APIKeyHash)
	// Output: true true
}
