// Package redact removes credentials from text that is about to be logged or returned: a
// provider's error message, a preview of a tool argument. The text never keeps a given API key
// (also not JSON-escaped, as "\/" or "\u002b", or URL-encoded), a "Bearer <token>" value, the
// value of an echoed Authorization or API-key header or field, or an OpenAI-style "sk-…" key:
// each is replaced by [Placeholder]. Keys already masked ("sk-ab***yz") and prose ("a bearer
// token") are left alone.
package redact

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Placeholder replaces every secret.
const Placeholder = "[redacted]"

const redacted = Placeholder

// secrets matches sk-… keys: "sk-" followed by at least 16 key characters. Shorter runs are
// already masked by the provider ("sk-ab***yz").
var secrets = regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`)

// bearer matches "Bearer" (or "Basic") and the token after it, escapes and all. Whether the token
// is a secret is decided by looksSecret, so that prose ("a bearer token") stays.
var bearer = regexp.MustCompile(`(?i)\b(bearer|basic)(\s+|%20|\+)([A-Za-z0-9._~+/=\\%-]+)`)

// headerValue matches an echoed credential header or field and its value: `Authorization:
// xyz`, `"authorization": ["xyz"]`, `api_key=xyz`, `X-Api-Key: xyz`.
var headerValue = regexp.MustCompile(`(?i)\b((?:proxy-)?authorization|x-api-key|api[-_]?key|access[-_]?token)(\\?["']?\s*[:=]\s*\[?\s*\\?["']?)((?:bearer|basic)\s+)?([^\s"'\\,;}\]&]+)`)

// Secrets replaces in s the apiKey ("" for none), its JSON- and URL-escaped forms, and anything
// that looks like a credential (see the package documentation) by "[redacted]".
func Secrets(s, apiKey string) string { return redact(s, apiKey) }

// redact replaces apiKey and anything that looks like a secret in s.
func redact(s, apiKey string) string {
	if apiKey != "" {
		for _, form := range keyForms(apiKey) {
			s = strings.ReplaceAll(s, form, redacted)
		}
	}
	s = headerValue.ReplaceAllStringFunc(s, func(m string) string {
		sub := headerValue.FindStringSubmatch(m)
		if sub[4] == redacted || strings.HasPrefix(sub[4], redacted) {
			return m
		}
		return sub[1] + sub[2] + sub[3] + redacted
	})
	s = bearer.ReplaceAllStringFunc(s, func(m string) string {
		sub := bearer.FindStringSubmatch(m)
		if !looksSecret(sub[3]) {
			return m
		}
		return sub[1] + " " + redacted
	})
	return secrets.ReplaceAllString(s, redacted)
}

// looksSecret reports whether the word after "Bearer" is a token rather than prose: 16
// characters or more, or anything but letters (a digit, a dot, an escape).
func looksSecret(tok string) bool {
	if strings.HasPrefix(tok, redacted[:len(redacted)-1]) {
		return false
	}
	if len(tok) >= 16 {
		return true
	}
	for _, c := range tok {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return true
		}
	}
	return false
}

// keyForms are the ways apiKey may appear in a body: as sent, JSON-escaped by Go (\u003c, \u0026)
// or by others (\/), and URL-encoded.
func keyForms(apiKey string) []string {
	forms := []string{apiKey}
	add := func(f string) {
		if f != "" && !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	if b, err := json.Marshal(apiKey); err == nil {
		add(string(b[1 : len(b)-1]))
		add(strings.ReplaceAll(string(b[1:len(b)-1]), "/", `\/`))
	}
	add(url.QueryEscape(apiKey))
	add(url.PathEscape(apiKey))
	return forms
}
