// Package openai is the consult.Model that speaks the OpenAI-compatible chat-completions
// protocol (POST {base}/chat/completions with "stream": true), which OpenAI, OpenRouter,
// Gemini's OpenAI-compatible endpoint, Ollama and vLLM accept. Package consult itself holds no
// HTTP client; a binary that consults another model does not link this one.
//
// # Use
//
//	m, err := openai.New("google/gemini-2.5-flash", openai.Options{
//		BaseURL: "https://openrouter.ai/api/v1", APIKey: callerKey, ContextWindow: 1_000_000})
//	resp, err := consult.Consult(ctx, consult.Request{Files: files, Query: q, Model: m})
//
// # Streaming, deadlines and errors
//
// The answer is read as a server-sent event stream, so a deadline keeps what has arrived
// (consult.Completion.Truncated). Every failure is an *agentfiles.Error: MODEL_ERROR with the
// provider's own message (bounded, keys redacted) and what to check, CONTEXT_TOO_LARGE when the
// provider says the prompt is over the model's window, INVALID_ARGUMENT from New for an empty
// model or a base URL that is not absolute http(s). The key is sent only in the Authorization
// header and is never logged.
package openai
