package mcpsdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/internal/keyedslots"
	"github.com/agentfiles/agentfiles/internal/utf8cut"
)

// Defaults of HTTPLimits fields left zero.
const (
	// DefaultMaxBodyBytes is adapters/httpapi's default, so /mcp and /tools take the same calls.
	DefaultMaxBodyBytes = 3 << 20
	// DefaultMaxBatchMessages bounds a JSON-RPC batch (protocol versions before 2025-06-18).
	DefaultMaxBatchMessages = 16
)

// HTTPLimits bound one HTTP request to the MCP endpoint (see GuardHTTP).
type HTTPLimits struct {
	// MaxBodyBytes caps the request body: PAYLOAD_TOO_LARGE (413) above it. Zero means
	// DefaultMaxBodyBytes. Give the same value as mcp.StreamableHTTPOptions.MaxRequestBodyBytes.
	MaxBodyBytes int64
	// MaxBatchMessages caps the messages of a JSON-RPC batch: INVALID_ARGUMENT (400) above it.
	// Zero means DefaultMaxBatchMessages.
	MaxBatchMessages int
	// Caller names who sent a request (a tenant's key hash, or the client address of a
	// request without credentials), for MaxConcurrent and Allow. Nil: every request is one
	// caller.
	Caller func(r *http.Request) string
	// MaxConcurrent is how many requests of one caller are served at once; further ones wait
	// for one of them to end (or for their own context). Zero: no limit. It bounds the CPU one
	// caller takes with work that calls no tool (tools/list, batches of it).
	MaxConcurrent int
	// Allow, when set, is asked before a request is served, with its caller and the number of
	// JSON-RPC messages it carries; an error refuses the request with the error's code and
	// status (RATE_LIMITED: 429). The server draws each message from the caller's rate limit
	// here, so requests that call no tool are limited too.
	Allow func(caller string, messages int) error
}

// GuardHTTP wraps the MCP streamable HTTP handler next (HTTPHandler, or the SDK's own) so that
// every request is bounded before the SDK sees it: its body by MaxBodyBytes, its batch by
// MaxBatchMessages, its rate by Allow, and a caller's requests served at once by
// MaxConcurrent. Every refusal, the guard's and the SDK's transport
// errors alike (405 for a GET, 415 for a wrong Content-Type, 400 for an unsupported protocol
// version, …), is answered as JSON, {"error": {"code", "message", "retryable"}}, as
// adapters/httpapi answers, instead of the SDK's plain text. A tool call (Register) stops
// when its HTTP request ends, whatever the protocol version.
func GuardHTTP(next http.Handler, lim HTTPLimits) http.Handler {
	if lim.MaxBodyBytes <= 0 {
		lim.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if lim.MaxBatchMessages <= 0 {
		lim.MaxBatchMessages = DefaultMaxBatchMessages
	}
	if lim.Caller == nil {
		lim.Caller = func(*http.Request) string { return "" }
	}
	var slots *keyedslots.Slots
	if lim.MaxConcurrent > 0 {
		slots = keyedslots.New(lim.MaxConcurrent)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		jw := &jsonErrorWriter{ResponseWriter: w}
		defer jw.finish()
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, lim.MaxBodyBytes))
			if err != nil {
				var tooLarge *http.MaxBytesError
				if errors.As(err, &tooLarge) {
					writeError(w, agentfiles.NewError(agentfiles.CodePayloadTooLarge, fmt.Sprintf(
						"the request body is larger than %d bytes; send less per request", lim.MaxBodyBytes), ""))
					return
				}
				writeError(w, agentfiles.NewError(agentfiles.CodeInvalidArgument, "could not read the request body", ""))
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			caller := lim.Caller(r)
			n, err := countMessages(body, lim.MaxBatchMessages)
			if err == nil && lim.Allow != nil {
				err = lim.Allow(caller, n)
			}
			if err != nil {
				writeError(w, err)
				return
			}
			if slots != nil {
				release, err := slots.Acquire(r.Context(), caller)
				if err != nil {
					writeError(w, agentfiles.WrapError(agentfiles.CodeCanceled, "the request was canceled while it waited for the caller's earlier requests", "", err))
					return
				}
				defer release()
			}
		}
		r, forget := trackRequest(r)
		defer forget()
		next.ServeHTTP(jw, r)
	})
}

// countMessages returns how many JSON-RPC messages body carries: the length of a batch (an
// array), else 1. A batch longer than max is INVALID_ARGUMENT. A body that is not JSON counts
// as 1 and is left to the SDK to refuse.
func countMessages(body []byte, limit int) (int, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '[' {
		return 1, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		return 1, nil
	}
	n := 0
	for dec.More() {
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return 1, nil
		}
		if n++; n > limit {
			return n, agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
				"a JSON-RPC batch may carry at most %d messages; send the rest in further requests", limit), "")
		}
	}
	return max(n, 1), nil
}

// writeError answers err as adapters/httpapi does: its status, {"error": ToolError}.
func writeError(w http.ResponseWriter, err error) {
	te, _ := adapters.ErrorOf(err)
	if te.Code == agentfiles.CodeRateLimited.String() {
		w.Header().Set("Retry-After", "1")
	}
	writeJSONError(w, adapters.HTTPStatus(te.Kind), te)
}

func writeJSONError(w http.ResponseWriter, status int, te adapters.ToolError) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Del("Content-Length")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": te})
}

// jsonErrorWriter passes a response through, except an error status whose body is not JSON
// (the SDK's http.Error): that body is held back, at most maxHeldBytes of it, and finish
// writes it as a JSON error with the same status.
type jsonErrorWriter struct {
	http.ResponseWriter
	held   bool
	status int
	text   bytes.Buffer
}

// maxHeldBytes bounds the plain-text message kept for the JSON error.
const maxHeldBytes = 512

func (w *jsonErrorWriter) WriteHeader(status int) {
	if status >= 400 && !strings.Contains(w.Header().Get("Content-Type"), "json") {
		w.held, w.status = true, status
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *jsonErrorWriter) Write(b []byte) (int, error) {
	if w.held {
		if room := maxHeldBytes - w.text.Len(); room > 0 {
			w.text.Write(b[:min(len(b), room)])
		}
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets streamed (SSE) answers through.
func (w *jsonErrorWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.held {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *jsonErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *jsonErrorWriter) finish() {
	if !w.held {
		return
	}
	code, hint := transportCode(w.status)
	msg := strings.TrimSpace(utf8cut.Shorten(w.text.String(), maxHeldBytes, "…"))
	if msg == "" {
		msg = http.StatusText(w.status)
	}
	te := adapters.ToolError{Code: code.String(), Message: msg + hint, Retryable: code.Retryable()}
	writeJSONError(w.ResponseWriter, w.status, te)
}

// transportCode is the error code of an HTTP status the SDK answered with, and a hint of what
// to do next.
func transportCode(status int) (agentfiles.Code, string) {
	switch status {
	case http.StatusUnauthorized:
		return agentfiles.CodeUnauthenticated, "; send \"Authorization: Bearer <key>\""
	case http.StatusForbidden:
		return agentfiles.CodePermissionDenied, ""
	case http.StatusNotFound:
		return agentfiles.CodeNotFound, "; the session is gone: initialize again"
	case http.StatusMethodNotAllowed:
		return adapters.CodeMethodNotAllowed, "; send MCP messages with POST"
	case http.StatusRequestEntityTooLarge:
		return agentfiles.CodePayloadTooLarge, "; send less per request"
	case http.StatusTooManyRequests:
		return agentfiles.CodeRateLimited, ""
	}
	if status >= 500 {
		return agentfiles.CodeInternal, "; retry later"
	}
	return agentfiles.CodeInvalidArgument, "; see the MCP streamable HTTP transport (POST JSON-RPC with Accept: application/json, text/event-stream and a supported MCP-Protocol-Version)"
}
