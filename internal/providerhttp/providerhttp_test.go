package providerhttp

import (
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestReadErrorShapes(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Error
	}{
		{"openai", `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			Error{Message: "Rate limit reached", Type: "requests", Code: "rate_limit_exceeded"}},
		{"openai null code", `{"error":{"message":"The server had an error","type":"server_error","code":null}}`,
			Error{Message: "The server had an error", Type: "server_error"}},
		{"gemini array with numeric code", `[{"error":{"code":404,"message":"models/nope is not found","status":"NOT_FOUND"}}]`,
			Error{Message: "models/nope is not found", Type: "NOT_FOUND", Code: "404"}},
		{"error string", `{"error":"upstream overloaded"}`, Error{Message: "upstream overloaded"}},
		{"cohere message", `{"message":"invalid request: too many documents"}`, Error{Message: "invalid request: too many documents"}},
		{"detail string", `{"detail":"Not authenticated"}`, Error{Message: "Not authenticated"}},
		{"detail list", `{"detail":[{"loc":["body","input"],"msg":"field required"}]}`,
			Error{Message: `[{"loc":["body","input"],"msg":"field required"}]`}},
		{"plain text", "  upstream connect error\n", Error{Message: "upstream connect error"}},
		{"html", "<html><body>502 Bad Gateway</body></html>", Error{Message: "<html><body>502 Bad Gateway</body></html>"}},
		{"json without a message", `{"status":"down"}`, Error{Message: `{"status":"down"}`}},
		{"error object without a message", `{"error":{"type":"server_error"}}`, Error{Message: `{"error":{"type":"server_error"}}`, Type: "server_error"}},
		{"empty", "", Error{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ReadError(strings.NewReader(tc.body), "")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ReadError(%q) (-want +got):\n%s", tc.body, diff)
			}
		})
	}
}

func TestReadErrorRedacts(t *testing.T) {
	const key = "caller-secret-key-0123"
	tests := []struct {
		name string
		body string
		want string
	}{
		{"request key", `{"error":{"message":"key caller-secret-key-0123 is over quota"}}`, "key [redacted] is over quota"},
		{"bearer token", `{"message":"bad header Authorization: Bearer abc.def-ghi_123456789"}`, "bad header Authorization: Bearer [redacted]"},
		{"lower-case bearer", "rejected: bearer eyJhbGciOiJIUzI1NiJ9.e30", "rejected: bearer [redacted]"},
		{"bearer in prose kept", `{"message":"Missing bearer token in the Authorization header"}`, "Missing bearer token in the Authorization header"},
		{"sk key", `{"error":"Incorrect API key provided: sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX"}`, "Incorrect API key provided: [redacted]"},
		{"masked key kept", `{"error":{"message":"Incorrect API key provided: sk-ca***ler."}}`, "Incorrect API key provided: sk-ca***ler."},
		{"key in the code", `{"error":{"message":"m","code":"caller-secret-key-0123"}}`, "m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ReadError(strings.NewReader(tc.body), key)
			if got.Message != tc.want {
				t.Errorf("Message = %q, want %q", got.Message, tc.want)
			}
			if strings.Contains(got.Message+got.Type+got.Code, key) {
				t.Errorf("the request's key leaked: %+v", got)
			}
		})
	}
}

func TestReadErrorCutsOnACharacterBoundary(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		want string
	}{
		{"short", "ok", "ok"},
		{"exactly the limit", strings.Repeat("a", maxMessageBytes), strings.Repeat("a", maxMessageBytes)},
		{"ascii over the limit", strings.Repeat("a", maxMessageBytes+10), strings.Repeat("a", maxMessageBytes) + "…"},
		// 511 ASCII bytes, then "é" (2 bytes) would straddle byte 512: it is dropped whole.
		{"two-byte character on the limit", strings.Repeat("a", maxMessageBytes-1) + "éé", strings.Repeat("a", maxMessageBytes-1) + "…"},
		// "検" is 3 bytes: 170 of them are 510 bytes, the 171st straddles the limit.
		{"three-byte characters", strings.Repeat("検", 200), strings.Repeat("検", 170) + "…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ReadError(strings.NewReader(`{"message":"`+tc.msg+`"}`), "").Message
			if got != tc.want {
				t.Errorf("Message = %q (%d bytes), want %q (%d bytes)", got, len(got), tc.want, len(tc.want))
			}
			if !utf8.ValidString(got) {
				t.Errorf("Message is not valid UTF-8: %q", got)
			}
		})
	}
}

// errReader returns its data, then an error, as a connection that breaks mid-body does.
type errReader struct{ data io.Reader }

func (r errReader) Read(p []byte) (int, error) {
	n, err := r.data.Read(p)
	if err == io.EOF {
		return n, errors.New("connection reset")
	}
	return n, err
}

func TestReadErrorBoundsTheBody(t *testing.T) {
	huge := strings.Repeat("x", 4*maxBodyBytes)
	if got := ReadError(strings.NewReader(huge), ""); len(got.Message) > maxMessageBytes+len("…") {
		t.Errorf("message of %d bytes from a %d-byte body", len(got.Message), len(huge))
	}
	if got := ReadError(errReader{strings.NewReader("partial answer")}, ""); got.Message != "partial answer" {
		t.Errorf("broken body: Message = %q, want what was read", got.Message)
	}
}

// A provider that echoes the request (headers included) does not put the key into logs: not in
// escaped forms, not as a short token after "Bearer", not in echoed header values.
func TestReadErrorRedactsEchoedRequests(t *testing.T) {
	const key = "s3cr3t/Key+ab<c>" // characters that JSON and URLs escape
	bodies := []string{
		`{"headers":{"Authorization":"Bearer s3cr3t\/Key+ab<c>"}}`,               // PHP-style \/
		`{"headers":{"Authorization":"Bearer s3cr3t/Key+ab\u003cc\u003e"}}`,      // Go-style \u003c
		`{"message":"echo: {\"Authorization\": \"Bearer s3cr3t\\/Key+ab<c>\"}"}`, // escaped twice
		"GET /?api_key=s3cr3t%2FKey%2Bab%3Cc%3E HTTP/1.1",
		"received headers: Authorization: Bearer s3cr3t/Key+ab<c>",
	}
	for _, body := range bodies {
		got := ReadError(strings.NewReader(body), key)
		if strings.Contains(got.Message, "s3cr3t") || !strings.Contains(got.Message, redacted) {
			t.Errorf("ReadError(%q).Message = %q, want the key redacted", body, got.Message)
		}
	}
	// Without the key (a mid-stream error event), echoed credentials are still recognised.
	for _, body := range []string{
		`{"headers":{"authorization":"Bearer abc123"}}`,
		`{"headers":{"Authorization":["Bearer abc\/def"]}}`,
		`{"request":{"headers":{"x-api-key":"short1"}}}`,
		`{"error":{"message":"bad credentials in 'Authorization: Basic dXNlcjpwYXNz'"}}`,
	} {
		got := ReadError(strings.NewReader(body), "")
		for _, secret := range []string{"abc123", "abc", "short1", "dXNlcjpwYXNz"} {
			if strings.Contains(got.Message, secret) {
				t.Errorf("ReadError(%q).Message = %q carries %q", body, got.Message, secret)
			}
		}
	}
	// Prose stays readable.
	for _, prose := range []string{"Missing bearer token in the Authorization header", "use Basic authentication", "the api_key field is required"} {
		body := `{"error":{"message":"` + prose + `"}}`
		if got := ReadError(strings.NewReader(body), ""); got.Message != prose {
			t.Errorf("ReadError(%q).Message = %q", body, got.Message)
		}
	}
}
