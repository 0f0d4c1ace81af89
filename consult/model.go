package consult

import "context"

// Model answers a prompt. Implementations must be safe for concurrent use.
//
// Complete streams or otherwise obtains the answer. When ctx ends before the answer is complete,
// it returns the text received so far with Truncated set, together with an error wrapping
// ctx's cause, so that a caller can keep a partial answer. Provider failures are
// *agentfiles.Error values with code MODEL_ERROR (or CONTEXT_TOO_LARGE when the provider says the
// prompt is too long).
type Model interface {
	// Name is the model name sent to the provider, e.g. "gpt-4.1" or "google/gemini-2.5-pro".
	Name() string
	// ContextWindow is how many tokens the model accepts, prompt plus answer; 0 when unknown,
	// which disables the check before sending.
	ContextWindow() Tokens
	Complete(ctx context.Context, p Prompt) (*Completion, error)
}

// Prompt is what [Consult] sends to a [Model].
type Prompt struct {
	System string // instructions
	User   string // the files and the query
	// ReasoningEffort is passed to reasoning models ("low", "medium", "high"); "" leaves the
	// model's default.
	ReasoningEffort string
	// MaxOutputTokens caps the answer; 0 leaves the provider's default.
	MaxOutputTokens Tokens
}

// Completion is a model's answer.
type Completion struct {
	Text string
	// Truncated is true when the answer is incomplete: the time ran out, the context was
	// cancelled, or the provider stopped at the output limit (FinishReason "length").
	Truncated    bool
	FinishReason string // as reported by the provider: "stop", "length", ...; "" if none
	Model        string // the model that answered, as reported by the provider
	Usage        Usage
}

// Usage is the provider's token accounting; zero when the provider does not report it.
type Usage struct {
	PromptTokens     Tokens `json:"prompt_tokens"`
	CompletionTokens Tokens `json:"completion_tokens"`
	ReasoningTokens  Tokens `json:"reasoning_tokens,omitempty"` // part of CompletionTokens
	TotalTokens      Tokens `json:"total_tokens"`
}
