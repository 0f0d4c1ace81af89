// Package chatwire holds the request-body shapes of two chat APIs, the Anthropic Messages API
// and the OpenAI chat-completions API, as package filecontext exports a conversation to them.
//
// # Why a package of its own
//
// These types describe another party's wire format, not an idea of agentfiles: they change when
// a provider's API does, and a host needs them only to marshal the exported conversation into
// its request (or to look at it in a test). Keeping them here keeps package filecontext's API to
// its own vocabulary (Context, Message, ReadFilesResult, …) while a host can still name, embed
// and inspect every part of what filecontext's Context.ExportAnthropic and ExportOpenAI return. Only the fields filecontext fills are declared; the request parts
// that are the host's business (model, max_tokens, temperature, …) are left to the host's own
// struct, which can embed [AnthropicMessages] or [OpenAIChat].
//
// # Shapes
//
//	AnthropicMessages  {"system": [block], "messages": [{"role", "content": [block]}], "tools": [...]}
//	OpenAIChat         {"messages": [{"role", "content", "tool_calls", "tool_call_id"}], "tools": [...]}
//
// [CacheControl] marks a prompt-cache breakpoint in either shape. Every type is a plain value,
// JSON-ready, with no behaviour beyond [OpenAIContent.MarshalJSON].
package chatwire

import "encoding/json"

// CacheControl marks a prompt-cache breakpoint; Type is "ephemeral".
type CacheControl struct {
	Type string `json:"type"`
}

// AnthropicMessages is the conversation part of an Anthropic Messages API request body
// (POST /v1/messages): set Model and MaxTokens in your own request struct, or embed this one.
type AnthropicMessages struct {
	System   []AnthropicBlock   `json:"system,omitempty"`
	Messages []AnthropicMessage `json:"messages"`
	Tools    []AnthropicTool    `json:"tools,omitempty"`
}

// AnthropicMessage is one message: role "user" or "assistant" and its content blocks.
type AnthropicMessage struct {
	Role    string           `json:"role"`
	Content []AnthropicBlock `json:"content"`
}

// AnthropicBlock is a content block: "text" (Text), "tool_use" (ID, Name, Input) or
// "tool_result" (ToolUseID, Content).
type AnthropicBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      string          `json:"content,omitempty"`
	CacheControl *CacheControl   `json:"cache_control,omitempty"`
}

// AnthropicTool declares a tool to the model.
type AnthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// OpenAIChat is the conversation part of an OpenAI chat-completions request body
// (POST /v1/chat/completions): set Model in your own request struct, or embed this one.
type OpenAIChat struct {
	Messages []OpenAIChatMessage `json:"messages"`
	Tools    []OpenAITool        `json:"tools,omitempty"`
}

// OpenAIChatMessage is one chat message: "system", "user", "assistant" (with ToolCalls) or
// "tool" (with ToolCallID). Content is omitted for an assistant message that only calls tools.
type OpenAIChatMessage struct {
	Role       string           `json:"role"`
	Content    *OpenAIContent   `json:"content,omitempty"`
	ToolCalls  []OpenAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

// OpenAIContent is a message's content: a plain string, or, when Parts is set, an array of
// content parts.
type OpenAIContent struct {
	Text  string
	Parts []OpenAIContentPart
}

// MarshalJSON writes the string, or the array of parts when there are any.
func (c OpenAIContent) MarshalJSON() ([]byte, error) {
	if c.Parts != nil {
		return json.Marshal(c.Parts)
	}
	return json.Marshal(c.Text)
}

// OpenAIContentPart is a text content part, optionally a cache breakpoint.
type OpenAIContentPart struct {
	Type         string        `json:"type"`
	Text         string        `json:"text"`
	CacheControl *CacheControl `json:"cache_control,omitempty"`
}

// OpenAIToolCall is a tool call of an assistant message; Function.Arguments is JSON text.
type OpenAIToolCall struct {
	ID       string             `json:"id"`
	Type     string             `json:"type"`
	Function OpenAIFunctionCall `json:"function"`
}

// OpenAIFunctionCall names the function and carries its arguments as JSON text.
type OpenAIFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// OpenAITool declares a function tool.
type OpenAITool struct {
	Type     string             `json:"type"`
	Function OpenAIToolFunction `json:"function"`
}

// OpenAIToolFunction is the declaration of a function tool.
type OpenAIToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}
