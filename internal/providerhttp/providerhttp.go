// Package providerhttp reads the error responses of the HTTP model providers agentfiles calls
// (chat completions, embeddings, rerank), so that every caller reports a provider's failure the
// same way: with the provider's own message, bounded in length, cut on a UTF-8 character
// boundary, and with secrets redacted.
//
// # Bodies
//
// [ReadError] understands the common error shapes:
//
//	{"error": {"message": "...", "type": "...", "code": ...}}   OpenAI and compatible proxies
//	[{"error": {"message": "...", "status": "...", "code": 404}}]  Gemini (a one-element array)
//	{"error": "..."}                                             plain proxies
//	{"message": "..."}                                           Cohere
//	{"detail": "..."} or {"detail": [...]}                       FastAPI-based servers
//
// A body in none of these shapes (plain text, an HTML error page, JSON without a message) is
// reported as its trimmed text.
//
// # Secrets
//
// Providers sometimes echo what they were sent, request headers included. The message never
// carries the request's API key (also not JSON-escaped, as "\/" or "\u002b", or URL-encoded), a
// "Bearer <token>" value, the value of an echoed Authorization or API-key header or field, or an
// OpenAI-style "sk-…" key: each is replaced by "[redacted]". Keys the provider already masked
// ("sk-ab***yz") are left alone. Package internal/redact holds these rules; its Secrets applies
// them to messages that do not come through ReadError (a stream's error event, a transport error).
package providerhttp

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/agentfiles/agentfiles/internal/redact"
	"github.com/agentfiles/agentfiles/internal/utf8cut"
)

// maxBodyBytes bounds how much of an error response is read.
const maxBodyBytes = 64 << 10

// maxMessageBytes bounds Error.Message; a longer message is cut on a character boundary and
// ends with "…".
const maxMessageBytes = 512

// redacted replaces every secret in a message.
const redacted = redact.Placeholder

// Error is what a provider said in an error response.
type Error struct {
	// Message is the provider's message, or the body's trimmed text when it has no known shape:
	// at most 512 bytes plus "…", valid UTF-8 when the body was, secrets redacted.
	// "" when the body is empty.
	Message string
	// Type is the error object's "type" (OpenAI) or "status" (Gemini), "" when absent.
	Type string
	// Code is the error object's "code" as text (a string, or a number such as 404), "" when
	// absent or null.
	Code string
}

// ReadError reads up to 64 KiB of a provider's error response body and returns what the
// provider said. apiKey is the key the request carried ("" if none); it is redacted wherever it
// appears, as are bearer tokens and sk-… keys. A body that cannot be read completely is
// reported as far as it was read.
func ReadError(body io.Reader, apiKey string) Error {
	raw, _ := io.ReadAll(io.LimitReader(body, maxBodyBytes))
	e := parse(raw)
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(raw))
	}
	// What the provider said is cut on a character boundary, with "…" where something was left out.
	for _, field := range []*string{&e.Message, &e.Type, &e.Code} {
		*field = utf8cut.Shorten(redact.Secrets(*field, apiKey), maxMessageBytes, "…")
	}
	return e
}

// errorObject is the OpenAI/Gemini error object.
type errorObject struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Status  string          `json:"status"`
	Code    json.RawMessage `json:"code"`
}

// parse extracts the message, type and code from the known shapes; Message is "" when none
// matched.
func parse(raw []byte) Error {
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(raw, &body) != nil {
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) != nil || len(arr) == 0 || json.Unmarshal(arr[0], &body) != nil {
			return Error{}
		}
	}
	var obj errorObject
	var s string
	switch {
	case len(body.Error) > 0 && json.Unmarshal(body.Error, &obj) == nil:
		typ := obj.Type
		if typ == "" {
			typ = obj.Status
		}
		return Error{Message: obj.Message, Type: typ, Code: rawText(obj.Code)}
	case len(body.Error) > 0 && json.Unmarshal(body.Error, &s) == nil:
		return Error{Message: s}
	case len(body.Message) > 0 && json.Unmarshal(body.Message, &s) == nil:
		return Error{Message: s}
	case len(body.Detail) > 0 && json.Unmarshal(body.Detail, &s) == nil:
		return Error{Message: s}
	case len(body.Detail) > 0 && string(body.Detail) != "null":
		return Error{Message: string(body.Detail)}
	}
	return Error{}
}

// rawText renders a JSON string or number as text; null and absent are "".
func rawText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	if t := string(v); t != "null" {
		return t
	}
	return ""
}
