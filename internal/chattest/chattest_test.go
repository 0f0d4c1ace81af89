package chattest_test

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/consult/openai"
	"github.com/agentfiles/agentfiles/internal/chattest"
)

// TestAnswersConsult: consult's OpenAI model reads the streamed answer and the usage, and the
// server records the request.
func TestAnswersConsult(t *testing.T) {
	srv := chattest.New(t, chattest.Options{Answer: []string{"Hello, ", "world."}, Model: "m", PromptTokens: 7, CompletionTokens: 2})
	m, err := openai.New("m", openai.Options{BaseURL: srv.URL, APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := m.Complete(context.Background(), consult.Prompt{System: "be brief", User: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Text != "Hello, world." || ans.Truncated || ans.Model != "m" || ans.Usage.PromptTokens != 7 || ans.Usage.TotalTokens != 9 {
		t.Errorf("answer %+v", ans)
	}
	var body struct{ Model string }
	srv.LastRequest(t, &body)
	if srv.Requests() != 1 || srv.Authorization() != "Bearer sk-test" || body.Model != "m" {
		t.Errorf("recorded %d requests, auth %q, model %q", srv.Requests(), srv.Authorization(), body.Model)
	}
	if got := srv.LastPrompt(t); got != "be brief\nhi\n" {
		t.Errorf("LastPrompt = %q, want the system and the user message", got)
	}
}
