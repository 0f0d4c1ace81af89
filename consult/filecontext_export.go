package consult

import (
	"encoding/json"
)

// ReadFilesToolDescription describes the read_files tool to a model.
const ReadFilesToolDescription = `Read files into the conversation. Pass absolute paths, e.g. {"paths": ["/repo/main.go", "/repo/README.md"]}. ` +
	`A file already in context and unchanged is not sent again (status "already_in_context"); base files are in the system prompt. ` +
	`Binary files and files over the per-file limit are reported, not sent. When the token budget is reached, ` +
	`earlier results lose their content (truncated: true) and the most recently requested files are re-sent.`

// readFilesInputSchema is the JSON Schema of [ReadFilesInput].
var readFilesInputSchema = json.RawMessage(`{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"},` +
	`"description":"absolute paths of the files to read, e.g. [\"/repo/main.go\"]"}},"required":["paths"],"additionalProperties":false}`)

// CacheControl marks a prompt-cache breakpoint; Type is "ephemeral".
type CacheControl struct {
	Type string `json:"type"`
}

func ephemeral() *CacheControl { return &CacheControl{Type: "ephemeral"} }

// AnthropicMessages is the conversation part of an Anthropic Messages API request body
// (POST /v1/messages): set Model and MaxTokens in your own request struct, or embed this one.
// It is a plain value, JSON-ready.
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

// AnthropicFromHistory converts a system prompt and a history to the Anthropic Messages format:
// the system prompt is one text block; assistant tool calls become tool_use blocks; tool
// messages become tool_result blocks in a user message; consecutive messages of the same role
// are merged, as the API requires. cache_control {"type":"ephemeral"} is set on the system block
// (so the stable prefix stays cached across resets) and on the last block of the last message
// (the moving breakpoint). The read_files tool is declared in Tools.
func AnthropicFromHistory(system string, history []ContextMessage) AnthropicMessages {
	out := AnthropicMessages{Messages: make([]AnthropicMessage, 0, len(history)),
		Tools: []AnthropicTool{{Name: ReadFilesToolName, Description: ReadFilesToolDescription, InputSchema: readFilesInputSchema}}}
	if system != "" {
		out.System = []AnthropicBlock{{Type: "text", Text: system, CacheControl: ephemeral()}}
	}
	for i := range history {
		m := &history[i]
		role := "user"
		var blocks []AnthropicBlock
		switch m.Role {
		case RoleAssistant:
			role = "assistant"
			if m.Text != "" {
				blocks = append(blocks, AnthropicBlock{Type: "text", Text: m.Text})
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, AnthropicBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: objectOrEmpty(tc.Input)})
			}
		case RoleTool:
			blocks = append(blocks, AnthropicBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: toolResultText(m)})
		default:
			if m.Text != "" {
				blocks = append(blocks, AnthropicBlock{Type: "text", Text: m.Text})
			}
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(out.Messages); n > 0 && out.Messages[n-1].Role == role {
			out.Messages[n-1].Content = append(out.Messages[n-1].Content, blocks...)
			continue
		}
		out.Messages = append(out.Messages, AnthropicMessage{Role: role, Content: blocks})
	}
	if n := len(out.Messages); n > 0 {
		last := out.Messages[n-1].Content
		last[len(last)-1].CacheControl = ephemeral()
	}
	return out
}

func objectOrEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage(`{}`)
	}
	return raw
}

// toolResultText is the text a tool message shows the model.
func toolResultText(m *ContextMessage) string {
	if m.ReadFiles != nil {
		return m.ReadFiles.JSON()
	}
	return m.Text
}

// OpenAIExportOptions configure [OpenAIFromHistory].
type OpenAIExportOptions struct {
	// CacheControl marks the cache breakpoint on the last message (and the system message) the
	// way OpenRouter and Anthropic-compatible endpoints accept it: content becomes an array of
	// text parts carrying cache_control. Leave it false for OpenAI itself, which caches
	// automatically and may reject unknown fields.
	CacheControl bool
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

// OpenAIFromHistory converts a system prompt and a history to the OpenAI chat-completions
// format: a system message, user and assistant messages, assistant tool_calls and one tool
// message per result. With opts.CacheControl, the system message and the last message that has
// content carry cache_control {"type":"ephemeral"} on their (single) text part.
func OpenAIFromHistory(system string, history []ContextMessage, opts OpenAIExportOptions) OpenAIChat {
	out := OpenAIChat{Messages: make([]OpenAIChatMessage, 0, len(history)+1),
		Tools: []OpenAITool{{Type: "function", Function: OpenAIToolFunction{Name: ReadFilesToolName,
			Description: ReadFilesToolDescription, Parameters: readFilesInputSchema}}}}
	if system != "" {
		out.Messages = append(out.Messages, OpenAIChatMessage{Role: "system", Content: &OpenAIContent{Text: system}})
	}
	for i := range history {
		m := &history[i]
		switch m.Role {
		case RoleAssistant:
			msg := OpenAIChatMessage{Role: "assistant"}
			if m.Text != "" || len(m.ToolCalls) == 0 {
				msg.Content = &OpenAIContent{Text: m.Text}
			}
			for _, tc := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, OpenAIToolCall{ID: tc.ID, Type: "function",
					Function: OpenAIFunctionCall{Name: tc.Name, Arguments: string(objectOrEmpty(tc.Input))}})
			}
			out.Messages = append(out.Messages, msg)
		case RoleTool:
			out.Messages = append(out.Messages, OpenAIChatMessage{Role: "tool", ToolCallID: m.ToolCallID,
				Content: &OpenAIContent{Text: toolResultText(m)}})
		default:
			out.Messages = append(out.Messages, OpenAIChatMessage{Role: "user", Content: &OpenAIContent{Text: m.Text}})
		}
	}
	if !opts.CacheControl {
		return out
	}
	markOpenAI := func(m *OpenAIChatMessage) {
		m.Content.Parts = []OpenAIContentPart{{Type: "text", Text: m.Content.Text, CacheControl: ephemeral()}}
		m.Content.Text = ""
	}
	if system != "" {
		markOpenAI(&out.Messages[0])
	}
	for i := len(out.Messages) - 1; i >= 0; i-- {
		if out.Messages[i].Content != nil && out.Messages[i].Content.Text != "" {
			markOpenAI(&out.Messages[i])
			break
		}
	}
	return out
}
