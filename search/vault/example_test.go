package vault_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/vault"
)

// A caller's key sealed on a write and opened by the indexer, for that file only.
func Example() {
	v, err := vault.New(map[string]string{"1": "a-long-random-kek-secret-value"}, vault.Options{})
	if err != nil {
		panic(err)
	}
	ac := agentfiles.NewAuthContext("sk-caller-key", "alice")
	scope := driver.Scope{Tenant: ac.APIKeyHash, Project: "demo"}
	ctx := context.Background()

	ref, _ := v.Seal(ctx, ac, scope, "/a.md") // fileio.Service does this on every write
	key, _ := v.Open(ctx, ref, scope, "/a.md")
	_, err = v.Open(ctx, ref, scope, "/other.md") // bound to the path
	fmt.Println(key, errors.Is(err, agentfiles.ErrCredentialUnavailable))
	_ = v.Delete(ctx, ref) // after use
	// Output: sk-caller-key true
}
