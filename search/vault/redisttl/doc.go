// Package redisttl is a [vault.TTLStore] in Redis: the place where a credential [vault.Vault]
// keeps its sealed API-key envelopes when the indexer runs in other processes than the servers
// that accept writes.
//
// # Model
//
// Each entry is one Redis string. Put is SET with an expiry (PX, millisecond precision), so
// Redis itself removes an envelope when its TTL passes; Get is GET; Delete is DEL, which the
// indexer calls right after it used the credential.
//
// Keys are written as given, after an optional KeyPrefix of this store. The Vault already puts
// its credential_cache_prefix (default "mcp:files:cred") before every reference, so with the
// defaults an envelope lives at "mcp:files:cred:<32 hex digits>". Only the Vault's sealed
// envelope (AES-256-GCM ciphertext, key ids, expiry) is stored, never a plaintext key.
//
// # Use
//
//	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
//	v, err := vault.New(map[string]string{"1": kekSecret}, vault.Options{
//		Store: redisttl.New(rdb, redisttl.Options{}),
//	})
//
// # Errors
//
// A Redis server that cannot be reached, or fails a command, gives UNAVAILABLE (retryable)
// without the server's address in the message; a TTL that is not positive is
// INVALID_ARGUMENT; a context that ends is returned as itself. [Codes] lists them.
//
// A Store is safe for concurrent use; it shares the go-redis client's connection pool.
package redisttl
