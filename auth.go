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
	// APIKeyHash is the hex SHA-256 of the API key: THE tenant. It scopes every query, lock,
	// quota and rate limit.
	APIKeyHash string
	// APIKey is the raw key, kept only for calling external model APIs on the caller's
	// behalf. It is never logged or stored in plaintext; String and LogValue redact it.
	APIKey string
	// UserIdentity is a display and log label only, never used for authorization.
	UserIdentity string
}

// NewAuthContext returns the AuthContext for apiKey, with APIKeyHash = hex(sha256(apiKey)).
func NewAuthContext(apiKey, userIdentity string) AuthContext {
	sum := sha256.Sum256([]byte(apiKey))
	return AuthContext{
		APIKeyHash:   hex.EncodeToString(sum[:]),
		APIKey:       apiKey,
		UserIdentity: userIdentity,
	}
}

// String renders the identity without the raw API key.
func (ac AuthContext) String() string {
	return fmt.Sprintf("AuthContext{tenant=%s user=%q api_key=%s}", shortHash(ac.APIKeyHash), ac.UserIdentity, redactedMarker(ac.APIKey))
}

// GoString keeps %#v from printing the raw key.
func (ac AuthContext) GoString() string { return ac.String() }

// LogValue implements slog.LogValuer: the tenant hash prefix and the user label, never the key.
func (ac AuthContext) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("tenant", shortHash(ac.APIKeyHash)),
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
