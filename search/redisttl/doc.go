// Package redisttl is a [search.TTLStore] in Redis: the place where the credential
// [search.Vault] keeps sealed API-key envelopes when the indexer runs in other processes than
// the servers that accept writes.
//
// # Model
//
// Each entry is one Redis string. Put is SET with an expiry (PX, millisecond precision), so
// Redis itself removes an envelope when its TTL passes; Get is GET; Delete is DEL, which the
// indexer calls right after it used the credential. Take (GETDEL) reads and removes in one step
// for callers that use a value once.
//
// Keys are written as given, after an optional KeyPrefix of this store. The Vault already puts
// its credential_cache_prefix (default "mcp:files:cred") before every reference, so with the
// defaults an envelope lives at "mcp:files:cred:<32 hex digits>". Only the Vault's sealed
// envelope (AES-256-GCM ciphertext, key ids, expiry) is stored, never a plaintext key.
//
// # Use
//
//	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
//	vault, err := search.NewVault(search.VaultConfig{
//		KEKs:  map[string]string{"1": kekSecret},
//		Store: redisttl.New(rdb, redisttl.Options{}),
//	})
//
// A Store is safe for concurrent use; it shares the go-redis client's connection pool.
package redisttl
