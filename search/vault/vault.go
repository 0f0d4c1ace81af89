package vault

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"sort"
	"strconv"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// Options are the optional settings of a [Vault]; the zero value gives the defaults.
// search.SecurityConfig.VaultOptions fills them from the service configuration file.
type Options struct {
	// SealKEK is the id of the KEK that seals new envelopes. Default: the newest id — the highest
	// number when every id is a decimal number, else the greatest id in byte order. Any listed
	// KEK opens envelopes, so rotate by adding a new id, and remove the old one after the TTL.
	SealKEK string
	// Prefix is put before each envelope reference in the TTL store (default DefaultPrefix,
	// "mcp:files:cred").
	Prefix string
	// TTL is how long an envelope lives (default DefaultTTL, 300s).
	TTL time.Duration
	// Store keeps the envelopes (default: a new in-memory store, which serves one process).
	Store TTLStore
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives records with KEK ids and reference prefixes, never keys (nil: silent).
	Logger *slog.Logger
}

// Vault seals a caller's API key into a short-lived envelope for the asynchronous indexer and
// opens it again. The envelope is AES-256-GCM under a fresh random data key; the data key is
// itself sealed with AES-256-GCM under a key-encryption key (KEK) chosen by id; the additional
// authenticated data binds the tenant, project, path, expiry and data-key id, so an envelope
// opens only for the file it was made for. Only the envelope is stored, under a random
// reference; the reference is what travels in the index job.
//
// Vault implements fileio.CredentialSealer, and search.CredentialOpener with Open and Delete.
// It is safe for concurrent use.
type Vault struct {
	keks    map[string]cipher.AEAD
	sealKEK string
	// slotSalt keys the hash of envelope slots (derived from the sealing KEK's secret).
	slotSalt []byte
	prefix   string
	ttl      time.Duration
	store    TTLStore
	now      func() time.Time
	log      *slog.Logger
}

var _ fileio.CredentialSealer = (*Vault)(nil)

// envelope is the stored form. Binary fields are hex.
type envelope struct {
	Version    int       `json:"v"`
	KEKID      string    `json:"kek_id"`
	DEKID      string    `json:"dek_id"`
	WrappedDEK string    `json:"wrapped_dek"` // nonce || AES-GCM(KEK, dek)
	Ciphertext string    `json:"ciphertext"`  // nonce || AES-GCM(dek, api key)
	AAD        string    `json:"aad"`         // hex SHA-256 of the AAD, for diagnostics; the AAD itself is recomputed
	ExpiresAt  time.Time `json:"expires_at"`
	// Ref is the reference Seal returned for this envelope; Delete removes the slot only while it
	// still holds the envelope of that reference, not a newer one sealed for the same file.
	Ref string `json:"ref,omitempty"`
}

// Defaults and limits.
const (
	DefaultPrefix     = "mcp:files:cred"  // Options.Prefix default (credential_cache_prefix)
	DefaultTTL        = 300 * time.Second // Options.TTL default (credential_cache_ttl_seconds)
	MinKEKSecretBytes = 16                // the shortest KEK secret New accepts
)

// New returns a Vault that seals with, and opens with, the key-encryption keys in keks: a map
// from KEK id to its secret (settings.mcp.files.security.encryption_keks). At least one is
// required; each secret must be at least MinKEKSecretBytes long, and the AES-256 key is its
// SHA-256. Errors are INVALID_CONFIG naming the configuration key.
func New(keks map[string]string, opts Options) (*Vault, error) {
	if len(keks) == 0 {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "at least one key-encryption key is required to seal caller credentials; add an id: secret pair", "settings.mcp.files.security.encryption_keks")
	}
	v := &Vault{keks: make(map[string]cipher.AEAD), prefix: opts.Prefix, ttl: opts.TTL, store: opts.Store, now: opts.Now, log: opts.Logger}
	ids := make([]string, 0, len(keks))
	for id, secret := range keks {
		if id == "" {
			return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "a key-encryption key id is empty", "settings.mcp.files.security.encryption_keks")
		}
		if len(secret) < MinKEKSecretBytes {
			return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "a key-encryption key secret must be at least 16 bytes; use a long random string", "settings.mcp.files.security.encryption_keks."+id)
		}
		key := sha256.Sum256([]byte(secret))
		aead, err := newGCM(key[:])
		if err != nil {
			return nil, agentfiles.WrapError(agentfiles.CodeInternal, "cannot initialise AES-GCM", "", err)
		}
		v.keks[id] = aead
		ids = append(ids, id)
	}
	v.sealKEK = opts.SealKEK
	if v.sealKEK == "" {
		v.sealKEK = newestID(ids)
	}
	secret, ok := keks[v.sealKEK]
	if !ok {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "the sealing key-encryption key id is not in encryption_keks", "SealKEK")
	}
	salt := sha256.Sum256([]byte("agentfiles-slot-salt-v1\x00" + secret))
	v.slotSalt = salt[:]
	if v.log == nil {
		v.log = slog.New(slog.DiscardHandler)
	}
	if v.prefix == "" {
		v.prefix = DefaultPrefix
	}
	if v.ttl <= 0 {
		v.ttl = DefaultTTL
	}
	if v.now == nil {
		v.now = time.Now
	}
	if v.store == nil {
		v.store = newMemTTLStore(v.now)
	}
	return v, nil
}

// newestID picks the highest numeric id when all ids are numbers, else the greatest string.
func newestID(ids []string) string {
	allNumeric := true
	for _, id := range ids {
		if _, err := strconv.ParseUint(id, 10, 64); err != nil {
			allNumeric = false
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		if allNumeric {
			a, _ := strconv.ParseUint(ids[i], 10, 64)
			b, _ := strconv.ParseUint(ids[j], 10, 64)
			return a < b
		}
		return ids[i] < ids[j]
	})
	return ids[len(ids)-1]
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Seal stores an envelope of ac.APIKey bound to (scope, path) and returns its reference. When
// ac carries no API key there is nothing to seal: Seal returns "" and nil. A store failure is
// UNAVAILABLE.
func (v *Vault) Seal(ctx context.Context, ac agentfiles.AuthContext, scope driver.Scope, path string) (string, error) {
	if ac.APIKey == "" {
		return "", nil
	}
	var dek [32]byte
	var idBytes [16]byte
	var nonceBytes [8]byte
	for _, b := range [][]byte{dek[:], idBytes[:], nonceBytes[:]} {
		if _, err := rand.Read(b); err != nil {
			return "", agentfiles.WrapError(agentfiles.CodeInternal, "no randomness for a credential envelope", "", err)
		}
	}
	dekID := hex.EncodeToString(idBytes[:])
	// One slot per file: a newer seal for the same (tenant, project, path) overwrites the older
	// envelope, so rapid writes to one file leave one envelope, not one per write. The
	// reference is the slot and a random part naming this seal.
	ref := v.slot(scope, path) + hex.EncodeToString(nonceBytes[:])
	expires := v.now().Add(v.ttl).UTC().Round(0)
	dataAEAD, err := newGCM(dek[:])
	if err != nil {
		return "", agentfiles.WrapError(agentfiles.CodeInternal, "cannot initialise AES-GCM", "", err)
	}
	aad := credentialAAD(scope, path, expires, dekID)
	env := envelope{
		Version:    1,
		KEKID:      v.sealKEK,
		DEKID:      dekID,
		WrappedDEK: hex.EncodeToString(sealGCM(v.keks[v.sealKEK], dek[:], dekAAD(v.sealKEK, dekID))),
		Ciphertext: hex.EncodeToString(sealGCM(dataAEAD, []byte(ac.APIKey), aad)),
		AAD:        hashHex(aad),
		ExpiresAt:  expires,
		Ref:        ref,
	}
	clear(dek[:])
	data, err := json.Marshal(env)
	if err != nil {
		return "", agentfiles.WrapError(agentfiles.CodeInternal, "cannot encode a credential envelope", "", err)
	}
	if err := v.store.Put(ctx, v.slotKey(ref), data, v.ttl); err != nil {
		return "", storeError("cannot store the credential envelope; retry the write", err)
	}
	v.log.DebugContext(ctx, "credential sealed", "kek_id", v.sealKEK, "ref_prefix", ref[:8], "expires_at", expires)
	return ref, nil
}

// Open returns the API key sealed under ref for (scope, path). Every failure is
// CREDENTIAL_UNAVAILABLE: missing or expired envelope, unknown KEK id, tampered data, or an
// envelope made for another tenant, project or path.
func (v *Vault) Open(ctx context.Context, ref string, scope driver.Scope, path string) (string, error) {
	fail := func(reason, msg string, err error) (string, error) {
		v.log.WarnContext(ctx, "credential envelope rejected", "reason", reason, "ref_prefix", refPrefix(ref))
		return "", agentfiles.WrapError(agentfiles.CodeCredentialUnavailable, msg, "", err)
	}
	if !validRef(ref) {
		return fail("bad_ref", "the credential reference is malformed", nil)
	}
	// The file's slot holds the newest envelope sealed for it, which may be newer than ref's
	// (the same tenant, hence the same key; the AAD check below binds it to the file). An
	// envelope of an older release is under the whole reference.
	data, ok, err := v.store.Get(ctx, v.slotKey(ref))
	if err == nil && !ok {
		data, ok, err = v.store.Get(ctx, v.prefix+":"+ref)
	}
	if err != nil {
		return fail("store_error", "the credential store is unavailable; retry later", err)
	}
	if !ok {
		return fail("missing", "the credential envelope is missing or expired; the write must be repeated by the caller to index with their key", nil)
	}
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil || env.Version != 1 {
		return fail("malformed", "the credential envelope is malformed", err)
	}
	if !v.now().Before(env.ExpiresAt) {
		return fail("expired", "the credential envelope has expired", nil)
	}
	kek, ok := v.keks[env.KEKID]
	if !ok {
		return fail("unknown_kek", "the credential envelope was sealed with a key-encryption key that is no longer configured", nil)
	}
	wrapped, err1 := hex.DecodeString(env.WrappedDEK)
	ct, err2 := hex.DecodeString(env.Ciphertext)
	if err1 != nil || err2 != nil {
		return fail("malformed", "the credential envelope is malformed", nil)
	}
	dek, err := openGCM(kek, wrapped, dekAAD(env.KEKID, env.DEKID))
	if err != nil {
		return fail("dek_auth", "the credential envelope failed authentication", err)
	}
	defer clear(dek)
	aad := credentialAAD(scope, path, env.ExpiresAt, env.DEKID)
	if env.AAD != hashHex(aad) {
		return fail("aad_mismatch", "the credential envelope belongs to another tenant, project or path", nil)
	}
	dataAEAD, err := newGCM(dek)
	if err != nil {
		return fail("dek_invalid", "the credential envelope failed authentication", err)
	}
	key, err := openGCM(dataAEAD, ct, aad)
	if err != nil {
		return fail("data_auth", "the credential envelope failed authentication", err)
	}
	return string(key), nil
}

// Delete removes the envelope under ref. Deleting a missing one is not an error; a store
// failure is UNAVAILABLE (the envelope still expires with its TTL).
func (v *Vault) Delete(ctx context.Context, ref string) error {
	if !validRef(ref) {
		return nil
	}
	key := v.slotKey(ref)
	data, ok, err := v.store.Get(ctx, key)
	if err == nil && ok {
		var env envelope
		if json.Unmarshal(data, &env) != nil || env.Ref == ref {
			err = deleteIfEqual(ctx, v.store, key, data)
		}
	}
	if err == nil {
		err = v.store.Delete(ctx, v.prefix+":"+ref) // an envelope of an older release
	}
	if err != nil {
		return storeError("cannot delete the credential envelope", err)
	}
	return nil
}

// slot is the first half of the references of (scope, path): 16 hex digits of a hash of the
// tenant, project and path, keyed with the sealing KEK so that the store's keys do not reveal
// which file they belong to.
func (v *Vault) slot(scope driver.Scope, path string) string {
	sum := sha256.Sum256([]byte("agentfiles-slot-v1\x00" + string(v.slotSalt) + "\x00" + scope.Tenant + "\x00" + scope.Project + "\x00" + path))
	return hex.EncodeToString(sum[:8])
}

// slotKey is the store key of ref's slot.
func (v *Vault) slotKey(ref string) string { return v.prefix + ":f:" + ref[:16] }

// deleteIfEqual deletes key if it still holds value: atomically when the store can
// ([ConditionalDeleter]), else by reading it again first.
func deleteIfEqual(ctx context.Context, store TTLStore, key string, value []byte) error {
	if cd, ok := store.(ConditionalDeleter); ok {
		return cd.DeleteIfEqual(ctx, key, value)
	}
	current, ok, err := store.Get(ctx, key)
	if err != nil || !ok || !bytes.Equal(current, value) {
		return err
	}
	return store.Delete(ctx, key)
}

func storeError(msg string, err error) error {
	if cerr := agentfiles.ContextError(err); cerr != nil {
		return cerr
	}
	return agentfiles.WrapError(agentfiles.CodeUnavailable, msg, "", err)
}

func validRef(ref string) bool {
	if len(ref) != 32 {
		return false
	}
	_, err := hex.DecodeString(ref)
	return err == nil
}

func refPrefix(ref string) string {
	if len(ref) >= 8 {
		return ref[:8]
	}
	return ""
}

func credentialAAD(scope driver.Scope, path string, expires time.Time, dekID string) []byte {
	b := []byte("agentfiles-credential-v1")
	for _, s := range []string{scope.Tenant, scope.Project, path, strconv.FormatInt(expires.UnixNano(), 10), dekID} {
		b = append(b, 0)
		b = append(b, s...)
	}
	return b
}

func dekAAD(kekID, dekID string) []byte {
	return []byte("agentfiles-dek-v1\x00" + kekID + "\x00" + dekID)
}

func sealGCM(a cipher.AEAD, plaintext, aad []byte) []byte {
	nonce := make([]byte, a.NonceSize(), a.NonceSize()+len(plaintext)+a.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic("crypto/rand failed: " + err.Error()) // crypto/rand.Read never fails on supported platforms
	}
	return a.Seal(nonce, nonce, plaintext, aad)
}

func openGCM(a cipher.AEAD, sealed, aad []byte) ([]byte, error) {
	if len(sealed) < a.NonceSize() {
		return nil, errShortCiphertext
	}
	return a.Open(nil, sealed[:a.NonceSize()], sealed[a.NonceSize():], aad)
}

var errShortCiphertext = agentfiles.NewError(agentfiles.CodeCredentialUnavailable, "ciphertext too short", "")

func hashHex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
