package agentfiles

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
)

// AuthContext is the trusted identity of the caller, put into the context by an adapter
// (see WithAuth). Services read it from the context only and never parse headers.
//
// AuthContext is a plain value and safe to copy and share between goroutines.
type AuthContext struct {
	// Tenant is the identifier of the files' owner: it scopes every query, lock, quota and rate
	// limit. The authenticator sets it. NewAuthContext sets it to APIKeyHash, so that each key
	// is its own tenant (the default, and what every earlier release did); an authenticator that
	// knows several keys of one owner gives them one Tenant (see WithTenant), and those keys
	// then share the files — a key can be rotated without losing them. Read it with TenantID,
	// which falls back to APIKeyHash when Tenant is empty.
	Tenant string
	// APIKeyHash is the hex SHA-256 of the API key: it identifies the key, not the owner (MCP
	// sessions are bound to it), and is the tenant when Tenant is empty.
	APIKeyHash string
	// APIKey is the raw key, kept only for calling external model APIs on the caller's
	// behalf. It is never logged or stored in plaintext; String and LogValue redact it.
	APIKey string
	// UserIdentity is a display and log label only, never used for authorization.
	UserIdentity string
}

// NewAuthContext returns the AuthContext for apiKey, with APIKeyHash = hex(sha256(apiKey)) and
// the key its own tenant (Tenant = APIKeyHash).
func NewAuthContext(apiKey, userIdentity string) AuthContext {
	sum := sha256.Sum256([]byte(apiKey))
	h := hex.EncodeToString(sum[:])
	return AuthContext{
		Tenant:       h,
		APIKeyHash:   h,
		APIKey:       apiKey,
		UserIdentity: userIdentity,
	}
}

// TenantID returns the tenant that scopes the caller's files: Tenant, or APIKeyHash when
// Tenant is empty.
func (ac AuthContext) TenantID() string {
	if ac.Tenant != "" {
		return ac.Tenant
	}
	return ac.APIKeyHash
}

// WithTenant returns a copy of ac whose files belong to tenant, an identifier the
// authenticator chose (see ValidateTenant); "" keeps the key's own tenant.
func (ac AuthContext) WithTenant(tenant string) AuthContext {
	if tenant != "" {
		ac.Tenant = tenant
	}
	return ac
}

// MaxTenantBytes is the longest tenant identifier: the length of a key hash.
const MaxTenantBytes = 64

// ValidateTenant checks a tenant identifier that an authenticator names: 1 to MaxTenantBytes
// ASCII letters, digits, '.', '_' or '-'. A key's default tenant, its hex SHA-256, is one, so
// naming it gives a new key the files of the old one (`printf %s OLD_KEY | sha256sum`).
// Errors are INVALID_CONFIG naming the identifier.
func ValidateTenant(tenant string) error {
	if tenant == "" || len(tenant) > MaxTenantBytes {
		return NewError(CodeInvalidConfig, fmt.Sprintf("a tenant identifier has 1 to %d characters", MaxTenantBytes), tenant)
	}
	for _, r := range tenant {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return NewError(CodeInvalidConfig, "a tenant identifier may hold only ASCII letters, digits, '.', '_' and '-'", tenant)
		}
	}
	return nil
}

// String renders the identity without the raw API key.
func (ac AuthContext) String() string {
	return fmt.Sprintf("AuthContext{tenant=%s user=%q api_key=%s}", shortHash(ac.TenantID()), ac.UserIdentity, redactedMarker(ac.APIKey))
}

// GoString keeps %#v from printing the raw key.
func (ac AuthContext) GoString() string { return ac.String() }

// LogValue implements slog.LogValuer: the tenant (a key hash's prefix) and the user label,
// never the key.
func (ac AuthContext) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("tenant", shortHash(ac.TenantID())),
		slog.String("user", ac.UserIdentity),
	)
}

func redactedMarker(key string) string {
	if key == "" {
		return "<none>"
	}
	return "<redacted>"
}

// shortHash is the first 12 hex digits of a tenant hash: enough to correlate log lines,
// not enough to matter.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

type authKey struct{}

// WithAuth returns a copy of ctx carrying ac.
func WithAuth(ctx context.Context, ac AuthContext) context.Context {
	return context.WithValue(ctx, authKey{}, ac)
}

// AuthFromContext returns the AuthContext stored by WithAuth, and whether there was one.
func AuthFromContext(ctx context.Context) (AuthContext, bool) {
	ac, ok := ctx.Value(authKey{}).(AuthContext)
	return ac, ok
}
