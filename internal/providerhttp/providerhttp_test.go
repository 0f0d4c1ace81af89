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
