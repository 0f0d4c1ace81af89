package redisttl_test

import (
	"context"
	"fmt"
	"log"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/vault"
	"github.com/agentfiles/agentfiles/search/vault/redisttl"
	"github.com/redis/go-redis/v9"
)

// Example keeps the credential Vault's sealed envelopes in Redis, so that indexer processes
// other than the one that accepted the write can use the caller's key. It needs a Redis server,
// so it is compiled but not run by go test.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()
	v, err := vault.New(map[string]string{"2026-01": "a-secret-of-at-least-16-bytes"}, // encryption_keks
		vault.Options{Store: redisttl.New(rdb, redisttl.Options{})})
	if err != nil {
		log.Fatal(err)
	}
	// fileio.NewService(store, fileio.Options{CredentialSealer: v}) seals on every write;
	// search.IndexerOptions{Credentials: v} opens and deletes after use. By hand:
	ac := agentfiles.NewAuthContext("sk-caller-key", "alice")
	scope := driver.Scope{Tenant: ac.APIKeyHash, Project: "notes"}
	ref, err := v.Seal(context.Background(), ac, scope, "/retry.md")
	if err != nil {
		log.Fatal(err)
	}
	key, err := v.Open(context.Background(), ref, scope, "/retry.md")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(key == "sk-caller-key")
	_ = v.Delete(context.Background(), ref)
}
