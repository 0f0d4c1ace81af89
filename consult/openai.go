package consult

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
)

// DefaultOpenAIBaseURL is the base URL used when [OpenAIModel.BaseURL] is empty.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// OpenAIModel is a [Model] speaking the OpenAI-compatible chat-completions protocol
// (POST {BaseURL}/chat/completions with "stream": true), which OpenAI, OpenRouter, Gemini's
// OpenAI-compatible endpoint, Ollama and vLLM accept. The answer is read as a server-sent
// event stream, so a deadline keeps what has arrived.
//
// Set the fields before first use and do not change them afterwards; an OpenAIModel is then safe
// for concurrent use. The API key is sent only in the Authorization header and is never logged.
type OpenAIModel struct {
	// BaseURL is the API root including its version, e.g. "https://openrouter.ai/api/v1" or
	// "https://generativelanguage.googleapis.com/v1beta/openai"; "" means DefaultOpenAIBaseURL.
	BaseURL string
	// APIKey is the caller's key, sent as "Authorization: Bearer"; "" sends no header (Ollama).
	APIKey string
	// Model is the provider's model name.
	Model string
	// ContextWindowTokens is the model's context window, checked before sending; 0 disables
	// the check.
	ContextWindowTokens Tokens
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

var _ Model = (*OpenAIModel)(nil)

// Name returns m.Model.
func (m *OpenAIModel) Name() string { return m.Model }

// ContextWindow returns m.ContextWindowTokens.
func (m *OpenAIModel) ContextWindow() Tokens { return m.ContextWindowTokens }

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
	MaxCompletionTokens Tokens         `json:"max_completion_tokens,omitempty"`
	MaxTokens           Tokens         `json:"max_tokens,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Complete sends the prompt and reads the streamed answer; see [Model].
func (m *OpenAIModel) Complete(ctx context.Context, p Prompt) (*Completion, error) {
	if m.Model == "" {
		return nil, NewError(CodeInvalidArgument, "OpenAIModel.Model is empty; set the provider's model name", "")
	}
	req := chatRequest{
		Model:           m.Model,
		Stream:          true,
		StreamOptions:   &streamOptions{IncludeUsage: true},
		ReasoningEffort: m.ReasoningEffort,
	}
	if p.ReasoningEffort != "" {
		req.ReasoningEffort = p.ReasoningEffort
	}
	if p.MaxOutputTokens > 0 {
		if m.LegacyMaxTokens {
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
		return nil, wrapError(CodeInternal, "cannot encode the request", "", err)
	}
	base := strings.TrimSuffix(m.BaseURL, "/")
	if base == "" {
		base = DefaultOpenAIBaseURL
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, wrapError(CodeInvalidArgument, "invalid base URL; give the API root such as https://api.openai.com/v1", base, err)
	}
	for k, vs := range m.Header {
		for _, v := range vs {
			hreq.Header.Add(k, v)
		}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if m.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+m.APIKey)
	}
	client := m.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	log := m.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	resp, err := client.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return &Completion{Truncated: true}, context.Cause(ctx)
		}
		log.WarnContext(ctx, "consult: model request failed", "model", m.Model, "error", err)
		return nil, wrapError(CodeModelError, "cannot reach the model provider at "+base+"; check the base URL and the network", m.Model, err)
	}
	defer resp.Body.Close()
	log.DebugContext(ctx, "consult: model responded", "model", m.Model, "status", resp.StatusCode, "prompt_bytes", len(body))
	if resp.StatusCode >= 300 {
		return nil, providerError(resp, m.Model)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return readWholeCompletion(resp.Body, m.Model)
	}
	c, err := readStream(ctx, resp.Body)
	if err != nil && ctx.Err() != nil {
		c.Truncated = true
		return c, context.Cause(ctx)
	}
	return c, err
}

// maxErrorBody caps how much of a provider's error response is read.
const maxErrorBody = 64 << 10

// providerError turns a non-2xx response into an *Error carrying the provider's own message.
func providerError(resp *http.Response, model string) *Error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg, typ, code := parseProviderError(raw)
	if msg == "" {
		msg = strings.TrimSpace(string(raw))
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	full := "the model provider answered HTTP " + strconv.Itoa(resp.StatusCode) + ": " + msg
	if typ != "" || code != "" {
		full += " (type " + orDash(typ) + ", code " + orDash(code) + ")"
	}
	switch {
	case code == "context_length_exceeded":
		return NewError(CodeContextTooLarge, full+"; consult fewer or smaller files", model)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		full += "; check the API key configured for this model"
	case resp.StatusCode == http.StatusTooManyRequests:
		full += "; wait and retry, or use another model"
	case resp.StatusCode == http.StatusNotFound:
		full += "; check the model name and the base URL"
	case resp.StatusCode >= 500:
		full += "; the provider failed, retry later"
	}
	return NewError(CodeModelError, full, model)
}

// parseProviderError reads the OpenAI error shape {"error":{"message","type","code"}}, also
// when wrapped in a one-element array (Gemini) or with a numeric code.
func parseProviderError(raw []byte) (msg, typ, code string) {
	type body struct {
		Error *struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
			Status  string          `json:"status"`
		} `json:"error"`
	}
	var one body
	if err := json.Unmarshal(raw, &one); err != nil || one.Error == nil {
		var arr []body
		if json.Unmarshal(raw, &arr) != nil || len(arr) == 0 || arr[0].Error == nil {
			return "", "", ""
		}
		one = arr[0]
	}
	e := one.Error
	code = strings.Trim(string(e.Code), `"`)
	if code == "null" {
		code = ""
	}
	typ = e.Type
	if typ == "" {
		typ = e.Status
	}
	return e.Message, typ, code
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// readWholeCompletion handles a server that ignored "stream": true and sent one JSON body.
func readWholeCompletion(r io.Reader, model string) (*Completion, error) {
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
		return nil, wrapError(CodeModelError, "the model provider sent an unreadable response", model, err)
	}
	c := &Completion{Model: body.Model}
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
	PromptTokens            Tokens `json:"prompt_tokens"`
	CompletionTokens        Tokens `json:"completion_tokens"`
	TotalTokens             Tokens `json:"total_tokens"`
	CompletionTokensDetails *struct {
		ReasoningTokens Tokens `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func (u wireUsage) usage() Usage {
	out := Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	return out
}

var errStreamEnded = errors.New("stream ended without [DONE]")
