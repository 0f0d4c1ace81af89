// Package vault hands a caller's API key to work that runs after the caller's request has
// returned — the asynchronous search indexer — without ever storing the key in plaintext.
//
// # Model
//
// A [Vault] seals the key into a short-lived envelope: AES-256-GCM under a fresh random data
// key, the data key itself sealed with AES-256-GCM under a key-encryption key (KEK) chosen by id,
// and additional authenticated data binding the tenant, project, path, expiry and data-key id,
// so that an envelope opens only for the file it was made for. The envelope is kept in a
// [TTLStore] in one slot per file (a keyed hash of tenant, project and path), and only its
// reference — the slot and a random part — travels with the work (the fileio index job).
// Whoever does the work opens the envelope, uses the key, and deletes it; an envelope nobody
// opens expires with its TTL. A newer seal for the same file replaces the older envelope, so
// rapid writes to one file, whose index jobs the outbox merges into one, leave one envelope
// rather than one per write. The older reference still opens the newer envelope (same tenant,
// so the same key), and deleting through it leaves the newer envelope in place.
//
// The Vault implements fileio.CredentialSealer, so a fileio Service seals on every write, and
// the Open/Delete pair that package search's Indexer consumes (search.CredentialOpener).
//
// # Key rotation
//
// Any configured KEK opens envelopes; the newest one seals (see [Options.SealKEK]). To rotate,
// add a KEK under a new id, and remove the old id once the credential TTL has passed.
//
// # Stores
//
// Without [Options.Store] envelopes live in memory, which serves a single process. Across
// processes — servers accepting writes, indexers elsewhere — use vault/redisttl, which keeps
// them in Redis with Redis's own expiry.
//
// # Errors
//
// Every failure to open an envelope is CREDENTIAL_UNAVAILABLE ([agentfiles.ErrCredentialUnavailable], kind
// unavailable): missing, expired, tampered, sealed for another file, or sealed with a KEK that
// is no longer configured. Callers retry and then do without the key. [Codes] lists every code.
//
// # Concurrency
//
// A Vault, the in-memory store and the stores of vault/redisttl are safe for concurrent use.
package vault
