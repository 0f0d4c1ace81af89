package adapters_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
)

func ExampleNewTool() {
	type addIn struct {
		A int `json:"a" jsonschema:"first addend"`
		B int `json:"b" jsonschema:"second addend"`
	}
	type addOut struct {
		Sum int `json:"sum"`
	}
	add := adapters.NewTool("add", "Add", "Adds two integers.",
		adapters.Annotations{ReadOnly: true, Idempotent: true},
		func(ctx context.Context, in addIn) (addOut, error) { return addOut{Sum: in.A + in.B}, nil })

	out, err := add.Call(context.Background(), json.RawMessage(`{"a": 2, "b": 3}`))
	fmt.Println(out, err)

	_, err = add.Call(context.Background(), json.RawMessage(`{"a": 2}`))
	te, _ := adapters.ErrorOf(err)
	fmt.Println(te.Code)
	// Output:
	// {5} <nil>
	// INVALID_ARGUMENT
}

// TokenAuth accepts a fixed set of tokens; tokens that name the same tenant share its files,
// so a key is rotated by adding the new one with the old one's tenant.
func ExampleTokenAuth() {
	authn, err := adapters.TokenAuth(map[string]adapters.TokenEntry{
		"old-key": {Label: "ops", Tenant: "ops-team"},
		"new-key": {Label: "ops", Tenant: "ops-team"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, key := range []string{"old-key", "new-key", "unknown"} {
		r := httptest.NewRequest(http.MethodPost, "/tools/file_read", nil)
		r.Header.Set("Authorization", "Bearer "+key)
		ac, err := authn(r)
		if err != nil {
			fmt.Println(key, agentfiles.ErrorCode(err))
			continue
		}
		fmt.Println(key, ac.TenantID())
	}
	// Output:
	// old-key ops-team
	// new-key ops-team
	// unknown UNAUTHENTICATED
}

// LimitConcurrency puts a tool that runs long under per-caller and total slots: a caller's
// second call while its first runs is refused at once (other callers have slots of their own).
func ExampleLimitConcurrency() {
	started, finish := make(chan struct{}), make(chan struct{})
	consult := adapters.NewTool("consult", "Ask a model", "Asks a model (minutes).", adapters.Annotations{ReadOnly: true},
		func(ctx context.Context, in struct{}) (string, error) {
			started <- struct{}{}
			<-finish
			return "answer", nil
		})
	limited := adapters.LimitConcurrency([]adapters.Tool{consult}, 1, 8)[0]
	alice := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("alice-key", "alice"))

	go limited.Call(alice, json.RawMessage(`{}`))
	<-started
	_, err := limited.Call(alice, json.RawMessage(`{}`))
	te, _ := adapters.ErrorOf(err)
	fmt.Println(te.Code)
	close(finish)
	// Output:
	// RESOURCE_BUSY
}
