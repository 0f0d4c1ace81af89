package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
)

// CredentialFunc returns the API key to send to a provider for the request in ctx. The default,
// [CallerAPIKey], takes the caller's own key from the context: a platform key is never used.
type CredentialFunc func(ctx context.Context) (string, error)

// CallerAPIKey returns fileio.AuthFromContext(ctx).APIKey, or a CREDENTIAL_UNAVAILABLE error
// when the context carries no key.
func CallerAPIKey(ctx context.Context) (string, error) {
	ac, ok := fileio.AuthFromContext(ctx)
	if !ok || ac.APIKey == "" {
		return "", NewError(CodeCredentialUnavailable, "no caller API key in the context; the provider is called with the caller's own key only", "")
	}
	return ac.APIKey, nil
}

// maxProviderResponseBytes bounds what is read from a provider (64 MiB: 2048 vectors of 3072
// floats as JSON fit comfortably).
const maxProviderResponseBytes = 64 << 20

// maxProviderMessageBytes bounds the provider error text kept in our error messages.
const maxProviderMessageBytes = 512

// postJSON sends body as JSON to endpoint with a bearer key and decodes a 2xx response into out.
// Every failure is a SEARCH_BACKEND_ERROR naming the provider and, when the provider sent one,
// its own error message; timeouts say so. The key never appears in errors or logs.
func postJSON(ctx context.Context, client *http.Client, timeout time.Duration, provider, endpoint, key string, body, out any, log *slog.Logger) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return wrapError(CodeInternal, "cannot encode the "+provider+" request", "", err)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(payload))
	if err != nil {
		return wrapError(CodeInvalidConfig, "the "+provider+" endpoint is not a valid URL; fix the endpoint setting", endpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			log.WarnContext(ctx, "provider timeout", "provider", provider, "timeout", timeout)
			return wrapError(CodeSearchBackend, fmt.Sprintf("%s did not answer within %s; retry later or raise the timeout", provider, timeout), endpoint, err)
		}
		log.WarnContext(ctx, "provider unreachable", "provider", provider, "error", err)
		return wrapError(CodeSearchBackend, provider+" is unreachable; retry later and check the endpoint setting", endpoint, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxProviderResponseBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return wrapError(CodeSearchBackend, fmt.Sprintf("%s did not finish its answer within %s; retry later or raise the timeout", provider, timeout), endpoint, err)
		}
		return wrapError(CodeSearchBackend, "reading the "+provider+" response failed; retry later", endpoint, err)
	}
	if len(data) > maxProviderResponseBytes {
		return NewError(CodeSearchBackend, fmt.Sprintf("%s answered with more than %d bytes; lower the batch size", provider, maxProviderResponseBytes), endpoint)
	}
	log.DebugContext(ctx, "provider call", "provider", provider, "status", resp.StatusCode, "response_bytes", len(data), "duration", time.Since(start))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := providerMessage(data)
		text := fmt.Sprintf("%s returned HTTP %d", provider, resp.StatusCode)
		if msg != "" {
			text += ": " + msg
		}
		switch {
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			text += "; the caller's API key was rejected by the provider"
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
			text += "; retry later"
		}
		return NewError(CodeSearchBackend, text, endpoint)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return wrapError(CodeSearchBackend, provider+" answered with a body that is not the expected JSON; check that the endpoint speaks its protocol", endpoint, err)
	}
	return nil
}

// providerMessage extracts an error message from the common error bodies:
// {"error":{"message":...}} (OpenAI), {"message":...} (Cohere), {"error":"..."} or {"detail":...}.
func providerMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	msg := ""
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			msg = inner.Message
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &s) == nil && s != "":
			msg = s
		case v.Message != "":
			msg = v.Message
		case len(v.Detail) > 0 && json.Unmarshal(v.Detail, &s) == nil:
			msg = s
		case len(v.Detail) > 0:
			msg = string(v.Detail)
		}
	} else {
		msg = strings.TrimSpace(string(body))
	}
	return truncateText(msg, maxProviderMessageBytes)
}

// truncateText cuts s to at most n bytes on a character boundary, marking the cut.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
