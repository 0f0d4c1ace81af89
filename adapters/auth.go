package adapters

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/agentfiles/agentfiles"
)

// Authenticator turns an HTTP request into the caller's trusted identity. Bindings call it once
// per request and put the result into the context with agentfiles.WithAuth; tool handlers never see
// headers. It returns an error (ideally an *agentfiles.Error with code UNAUTHENTICATED) to refuse the request.
type Authenticator func(r *http.Request) (agentfiles.AuthContext, error)

// TokenVerifier checks a bearer token and returns a display label for the caller (used in logs
// only). Return an error to refuse the token.
type TokenVerifier func(ctx context.Context, token string) (userIdentity string, err error)

// BearerAuth returns the default Authenticator: the request must carry
// "Authorization: Bearer <token>", and the tenant is the hex SHA-256 of the token
// (agentfiles.NewAuthContext). verify decides which tokens are valid; nil accepts any non-empty
// token, which is right when every caller's key is its own tenant and nothing else is needed.
func BearerAuth(verify TokenVerifier) Authenticator {
	return func(r *http.Request) (agentfiles.AuthContext, error) {
		token, ok := bearerToken(r.Header.Get("Authorization"))
		if !ok {
			return agentfiles.AuthContext{}, &agentfiles.Error{Code: agentfiles.CodeUnauthenticated,
				Message: `send the API key as "Authorization: Bearer <key>"`}
		}
		identity := "bearer"
		if verify != nil {
			id, err := verify(r.Context(), token)
			if err != nil {
				return agentfiles.AuthContext{}, &agentfiles.Error{Code: agentfiles.CodeUnauthenticated,
					Message: "the bearer token was not accepted; check the API key", Err: err}
			}
			identity = id
		}
		return agentfiles.NewAuthContext(token, identity), nil
	}
}

// StaticTokens returns a TokenVerifier that accepts exactly the given tokens, each mapped to its
// display label (for example a development token given on the command line).
func StaticTokens(labels map[string]string) TokenVerifier {
	return func(_ context.Context, token string) (string, error) {
		// Compare against every token in constant time so response timing reveals nothing.
		found := ""
		for t, label := range labels {
			if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
				found = label
			}
		}
		if found == "" {
			return "", agentfiles.ErrUnauthenticated
		}
		return found, nil
	}
}

// TokenEntry is what TokenAuth knows of one accepted bearer token: its display label (for logs
// only) and its tenant. An empty Tenant keeps the token's own tenant, the hex SHA-256 of the
// token; tokens with the same Tenant share that tenant's files, so a key can be replaced by a
// new one with the same Tenant without losing them.
type TokenEntry struct {
	Label  string
	Tenant string
}

// TokenAuth returns an Authenticator that accepts exactly the bearer tokens of tokens and
// gives each the tenant its entry names (agentfiles.AuthContext.Tenant); see TokenEntry.
// Tenants are checked with agentfiles.ValidateTenant first: an invalid one is an INVALID_CONFIG
// error here, not a refused request later.
func TokenAuth(tokens map[string]TokenEntry) (Authenticator, error) {
	labels := make(map[string]string, len(tokens))
	for t, e := range tokens {
		if e.Tenant != "" {
			if err := agentfiles.ValidateTenant(e.Tenant); err != nil {
				return nil, err
			}
		}
		labels[t] = e.Label
		if e.Label == "" {
			labels[t] = "bearer"
		}
	}
	bearer := BearerAuth(StaticTokens(labels))
	return func(r *http.Request) (agentfiles.AuthContext, error) {
		ac, err := bearer(r)
		if err != nil {
			return ac, err
		}
		return ac.WithTenant(tokens[ac.APIKey].Tenant), nil // the token was accepted: it is in tokens
	}, nil
}

func bearerToken(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
