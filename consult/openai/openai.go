package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/internal/providerhttp"
	"github.com/agentfiles/agentfiles/internal/redact"
)

// DefaultBaseURL is the base URL used when [Options.BaseURL] is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Options configure an [Model]. The zero value is usable: OpenAI's API without
// a key, no context-window check and the provider's defaults.
type Options struct {
	// BaseURL is the API root including its version, e.g. "https://openrouter.ai/api/v1" or
	// "https://generativelanguage.googleapis.com/v1beta/openai"; "" means DefaultBaseURL.
	BaseURL string
	// APIKey is the caller's key, sent as "Authorization: Bearer"; "" sends no header (Ollama).
	APIKey string
	// ContextWindow is the model's context window in tokens, checked before sending; 0
	// disables the check.
	ContextWindow consult.Tokens
	// ReasoningEffort is the default "reasoning_effort"; a Prompt's value overrides it.
	ReasoningEffort string
	// LegacyMaxTokens sends the output cap as "max_tokens" instead of "max_completion_tokens",
	// for servers that only know the older field.
	LegacyMaxTokens bool
	// Header holds extra request headers (e.g. OpenRouter's HTTP-Referer).
	Header http.Header
	// HTTPClient is the client to use; nil means a client without a timeout (the context
	// bounds every call).
	HTTPClient *http.Client
	// Logger receives request outcomes (status, durations, sizes; never keys or content).
	// Nil discards.
	Logger *slog.Logger
}

// Model is a [Model] speaking the OpenAI-compatible chat-completions protocol
// (POST {BaseURL}/chat/completions with "stream": true), which OpenAI, OpenRouter, Gemini's
// OpenAI-compatible endpoint, Ollama and vLLM accept. The answer is read as a server-sent
// event stream, so a deadline keeps what has arrived.
//
// Build one with [New]; it is safe for concurrent use. The API key is sent only in
// the Authorization header and is never logged.
type Model struct {
	model  string
	base   string // the API root, without a trailing "/"
	opts   Options
	client *http.Client
	log    *slog.Logger
}

var _ consult.Model = (*Model)(nil)

// New returns the model named model (the provider's name for it) at the endpoint
// opts describe. It fails with INVALID_ARGUMENT when model is empty or BaseURL is not an
// absolute http or https URL.
func New(model string, opts Options) (*Model, error) {
	if model == "" {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "the model name is empty; give the provider's model name, e.g. gpt-4.1", "model")
	}
	base := strings.TrimSuffix(opts.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, agentfiles.WrapError(agentfiles.CodeInvalidArgument, "invalid base URL; give the API root such as https://api.openai.com/v1", base, err)
	}
	opts.Header = opts.Header.Clone()
	m := &Model{model: model, base: base, opts: opts, client: opts.HTTPClient, log: opts.Logger}
	if m.client == nil {
		m.client = http.DefaultClient
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	return m, nil
}

// Name returns the provider's model name.
func (m *Model) Name() string { return m.model }

// ContextWindow returns the context window given in the options.
func (m *Model) ContextWindow() consult.Tokens { return m.opts.ContextWindow }

type chatTurn struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model               string         `json:"model"`
	Messages            []chatTurn     `json:"messages"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
	MaxCompletionTokens consult.Tokens `json:"max_completion_tokens,omitempty"`
	MaxTokens           consult.Tokens `json:"max_tokens,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Complete sends the prompt and reads the streamed answer; see [Model].
func (m *Model) Complete(ctx context.Context, p consult.Prompt) (*consult.Completion, error) {
	req := chatRequest{
		Model:           m.model,
		Stream:          true,
		StreamOptions:   &streamOptions{IncludeUsage: true},
		ReasoningEffort: m.opts.ReasoningEffort,
	}
	if p.ReasoningEffort != "" {
		req.ReasoningEffort = p.ReasoningEffort
	}
	if p.MaxOutputTokens > 0 {
		if m.opts.LegacyMaxTokens {
			req.MaxTokens = p.MaxOutputTokens
		} else {
			req.MaxCompletionTokens = p.MaxOutputTokens
		}
	}
	if p.System != "" {
		req.Messages = append(req.Messages, chatTurn{Role: "system", Content: p.System})
	}
	req.Messages = append(req.Messages, chatTurn{Role: "user", Content: p.User})
	body, err := json.Marshal(req)
	if err != nil {
		return nil, agentfiles.WrapError(agentfiles.CodeInternal, "cannot encode the request", "", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, m.base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, agentfiles.WrapError(agentfiles.CodeInvalidArgument, "invalid base URL; give the API root such as https://api.openai.com/v1", m.base, err)
	}
	for k, vs := range m.opts.Header {
		for _, v := range vs {
			hreq.Header.Add(k, v)
		}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if m.opts.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+m.opts.APIKey)
	}
	resp, err := m.client.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return &consult.Completion{Truncated: true}, endedError(ctx)
		}
		m.log.WarnContext(ctx, "consult: model request failed", "model", m.model, "error", err)
		return nil, agentfiles.WrapError(consult.CodeModelError, "cannot reach the model provider at "+m.base+"; check the base URL and the network", m.model, err)
	}
	defer resp.Body.Close()
	m.log.DebugContext(ctx, "consult: model responded", "model", m.model, "status", resp.StatusCode, "prompt_bytes", len(body))
	if resp.StatusCode >= 300 {
		return nil, providerError(resp, m.model)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return readWholeCompletion(resp.Body, m.model)
	}
	c, err := readStream(ctx, resp.Body)
	if err != nil && ctx.Err() != nil {
		c.Truncated = true
		return c, endedError(ctx)
	}
	return c, redactError(err, m.opts.APIKey)
}

// endedError is the error of a call whose context ended: its cause when that is coded (the
// TIMEOUT of consult's own time limit), else TIMEOUT or CANCELED (agentfiles.ContextError).
func endedError(ctx context.Context) error {
	cause := context.Cause(ctx)
	if cerr := agentfiles.ContextError(cause); cerr != nil {
		return cerr
	}
	return cause
}

// redactError removes the request's key, in every form providerhttp knows, from the message of
// a provider-derived error (a stream's error event is read without the key).
func redactError(err error, key string) error {
	var e *agentfiles.Error
	if err == nil || key == "" || !errors.As(err, &e) {
		return err
	}
	e.Message = redact.Secrets(e.Message, key)
	return err
}

// providerError turns a non-2xx response into an *agentfiles.Error carrying the provider's own
// message.
func providerError(resp *http.Response, model string) *agentfiles.Error {
	var key string // redacted from the provider's message should it echo it
	if resp.Request != nil {
		key = strings.TrimPrefix(resp.Request.Header.Get("Authorization"), "Bearer ")
	}
	pe := providerhttp.ReadError(resp.Body, key)
	msg, typ, code := pe.Message, pe.Type, pe.Code
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	full := "the model provider answered HTTP " + strconv.Itoa(resp.StatusCode) + ": " + msg
	if typ != "" || code != "" {
		full += " (type " + orDash(typ) + ", code " + orDash(code) + ")"
	}
	switch {
	case code == "context_length_exceeded":
		return agentfiles.NewError(consult.CodeContextTooLarge, full+"; consult fewer or smaller files", model)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		full += "; check the API key configured for this model"
	case resp.StatusCode == http.StatusTooManyRequests:
		full += "; wait and retry, or use another model"
	case resp.StatusCode == http.StatusNotFound:
		full += "; check the model name and the base URL"
	case resp.StatusCode >= 500:
		full += "; the provider failed, retry later"
	}
	return agentfiles.NewError(consult.CodeModelError, full, model)
}

// parseProviderError reads a provider's error object (see providerhttp.ReadError for the
// shapes understood), bounded, cut on a character boundary and with secrets redacted.
func parseProviderError(raw []byte) (msg, typ, code string) {
	e := providerhttp.ReadError(bytes.NewReader(raw), "")
	return e.Message, e.Type, e.Code
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// readWholeCompletion handles a server that ignored "stream": true and sent one JSON body.
func readWholeCompletion(r io.Reader, model string) (*consult.Completion, error) {
	var body struct {
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *wireUsage `json:"usage"`
	}
	if err := json.NewDecoder(r).Decode(&body); err != nil {
		return nil, agentfiles.WrapError(consult.CodeModelError, "the model provider sent an unreadable response", model, err)
	}
	c := &consult.Completion{Model: body.Model}
	if len(body.Choices) > 0 {
		c.Text = body.Choices[0].Message.Content
		c.FinishReason = body.Choices[0].FinishReason
	}
	c.Truncated = c.FinishReason == "length"
	if body.Usage != nil {
		c.Usage = body.Usage.usage()
	}
	return c, nil
}

type wireUsage struct {
	PromptTokens            consult.Tokens `json:"prompt_tokens"`
	CompletionTokens        consult.Tokens `json:"completion_tokens"`
	TotalTokens             consult.Tokens `json:"total_tokens"`
	CompletionTokensDetails *struct {
		ReasoningTokens consult.Tokens `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func (u wireUsage) usage() consult.Usage {
	out := consult.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	return out
}

var errStreamEnded = errors.New("stream ended without [DONE]")
