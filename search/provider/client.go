package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/providerhttp"
)

// CredentialFunc returns the API key to send to a provider for the request in ctx. The default,
// [CallerAPIKey], takes the caller's own key from the context: a platform key is never used.
type CredentialFunc func(ctx context.Context) (string, error)

// CallerAPIKey returns agentfiles.AuthFromContext(ctx).APIKey, or a CREDENTIAL_UNAVAILABLE
// error (agentfiles.ErrCredentialUnavailable) when the context carries no key.
func CallerAPIKey(ctx context.Context) (string, error) {
	ac, ok := agentfiles.AuthFromContext(ctx)
	if !ok || ac.APIKey == "" {
		return "", agentfiles.NewError(agentfiles.CodeCredentialUnavailable, "no caller API key in the context; the provider is called with the caller's own key only", "")
	}
	return ac.APIKey, nil
}

// maxProviderResponseBytes bounds what is read from a provider (64 MiB: 2048 vectors of 3072
// floats as JSON fit comfortably).
const maxProviderResponseBytes = 64 << 20

// providerClient is what OpenAIEmbedder and CohereReranker share: the endpoint, how it is
// called, and where the key comes from.
type providerClient struct {
	name       string // "embedding provider", "rerank provider": names the provider in errors
	endpoint   string
	timeout    time.Duration
	http       *http.Client
	credential CredentialFunc
	log        *slog.Logger
}

// newProviderClient fills the defaults: defaultTimeout, a plain http.Client, CallerAPIKey, and a
// silent logger.
func newProviderClient(name, endpoint string, timeout, defaultTimeout time.Duration, hc *http.Client, credential CredentialFunc, log *slog.Logger) providerClient {
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	if hc == nil {
		hc = &http.Client{}
	}
	if credential == nil {
		credential = CallerAPIKey
	}
	return providerClient{name: name, endpoint: endpoint, timeout: timeout, http: hc, credential: credential, log: orDiscard(log)}
}

// post sends body as JSON to the endpoint with a bearer key and decodes a 2xx response into out.
// Every failure is a MODEL_ERROR naming the provider and, when the provider sent one, its own
// error message (read by providerhttp.ReadError: bounded, secrets redacted); a provider that
// does not answer in time is TIMEOUT, a caller that goes away CANCELED. The key never appears
// in errors or logs.
func (c providerClient) post(ctx context.Context, key string, body, out any) error {
	provider, endpoint, timeout, log := c.name, c.endpoint, c.timeout, c.log
	payload, err := json.Marshal(body)
	if err != nil {
		return agentfiles.WrapError(agentfiles.CodeInternal, "cannot encode the "+provider+" request", "", err)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(payload))
	if err != nil {
		return agentfiles.WrapError(agentfiles.CodeInvalidConfig, "the "+provider+" endpoint is not a valid URL; fix the endpoint setting", endpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			log.WarnContext(ctx, "provider timeout", "provider", provider, "timeout", timeout)
			return endedFailure(ctx, fmt.Sprintf("%s did not answer within %s; retry later or raise the timeout", provider, timeout), endpoint, err)
		}
		log.WarnContext(ctx, "provider unreachable", "provider", provider, "error", err)
		return backendFailure(provider+" is unreachable; retry later and check the endpoint setting", endpoint, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		pe := providerhttp.ReadError(resp.Body, key)
		log.DebugContext(ctx, "provider call", "provider", provider, "status", resp.StatusCode, "duration", time.Since(start))
		text := fmt.Sprintf("%s returned HTTP %d", provider, resp.StatusCode)
		if pe.Message != "" {
			text += ": " + pe.Message
		}
		switch {
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			text += "; the caller's API key was rejected by the provider"
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
			text += "; retry later"
		}
		return agentfiles.NewError(agentfiles.CodeModelError, text, endpoint)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxProviderResponseBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return endedFailure(ctx, fmt.Sprintf("%s did not finish its answer within %s; retry later or raise the timeout", provider, timeout), endpoint, err)
		}
		return backendFailure("reading the "+provider+" response failed; retry later", endpoint, err)
	}
	if len(data) > maxProviderResponseBytes {
		return agentfiles.NewError(agentfiles.CodeModelError, fmt.Sprintf("%s answered with more than %d bytes; lower the batch size", provider, maxProviderResponseBytes), endpoint)
	}
	log.DebugContext(ctx, "provider call", "provider", provider, "status", resp.StatusCode, "response_bytes", len(data), "duration", time.Since(start))
	if err := json.Unmarshal(data, out); err != nil {
		return backendFailure(provider+" answered with a body that is not the expected JSON; check that the endpoint speaks its protocol", endpoint, err)
	}
	return nil
}

// backendFailure is a MODEL_ERROR with its cause kept for logs.
func backendFailure(message, arg string, cause error) error {
	return agentfiles.WrapError(agentfiles.CodeModelError, message, arg, cause)
}

// endedFailure is the error of a call whose context ended: TIMEOUT with message when its
// deadline (the caller's or the client's timeout) passed, CANCELED when the caller went away.
func endedFailure(ctx context.Context, message, arg string, cause error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return agentfiles.WrapError(agentfiles.CodeTimeout, message, arg, cause)
	}
	return agentfiles.ContextError(ctx.Err())
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
