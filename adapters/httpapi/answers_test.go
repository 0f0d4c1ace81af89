package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/httpapi"
)

type heldIn struct {
	Hold bool `json:"hold,omitempty" jsonschema:"true: the answer's encoding waits until the test releases it"`
}

// heldAnswer is an answer whose encoding blocks while hold is set, as a large answer's does.
type heldAnswer struct {
	hold    bool
	started chan<- struct{}
	release <-chan struct{}
}

func (a heldAnswer) MarshalJSON() ([]byte, error) {
	if a.hold {
		a.started <- struct{}{}
		<-a.release
	}
	return []byte(`{"ok":true}`), nil
}

// TestMaxConcurrentAnswers: with one answer at a time per caller, a caller's second answer waits
// while its first is being encoded (here until the client gives up), another caller's does not,
// and the first completes once released.
func TestMaxConcurrentAnswers(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	tool := adapters.NewTool("answer", "Answer", "Answers, slowly when asked.", adapters.Annotations{ReadOnly: true},
		func(ctx context.Context, in heldIn) (heldAnswer, error) {
			return heldAnswer{hold: in.Hold, started: started, release: release}, nil
		})
	srv := httptest.NewServer(httpapi.NewHandler([]adapters.Tool{tool}, httpapi.Options{
		Authenticator: adapters.BearerAuth(nil), MaxConcurrentAnswers: 1}))
	defer srv.Close()
	call := func(ctx context.Context, key, body string) (string, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/tools/answer", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return strings.TrimSpace(string(b)), err
	}

	first := make(chan string, 1)
	go func() {
		out, err := call(context.Background(), "heavy", `{"hold": true}`)
		if err != nil {
			out = err.Error()
		}
		first <- out
	}()
	<-started // heavy's first answer is being encoded

	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if out, err := call(short, "heavy", `{}`); err == nil {
		t.Errorf("heavy's second answer while its first is encoded: %q, want it to wait past the client's deadline", out)
	}
	if out, err := call(context.Background(), "light", `{}`); err != nil || out != `{"ok":true}` {
		t.Errorf("another caller's answer: %q, %v", out, err)
	}
	close(release)
	if out := <-first; out != `{"ok":true}` {
		t.Errorf("heavy's first answer: %q", out)
	}
	if out, err := call(context.Background(), "heavy", `{}`); err != nil || out != `{"ok":true}` {
		t.Errorf("heavy's answer once the first was written: %q, %v", out, err)
	}
}
