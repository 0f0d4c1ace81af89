package filecontext

import (
	"encoding/json"

	"github.com/agentfiles/agentfiles/consult/filecontext/chatwire"
)

// ReadFilesToolDescription describes the read_files tool to a model.
const ReadFilesToolDescription = `Read files into the conversation. Pass absolute paths, e.g. {"paths": ["/repo/main.go", "/repo/README.md"]}. ` +
	`A file already in context and unchanged is not sent again (status "already_in_context"); base files are in the system prompt. ` +
	`Binary files and files over the per-file limit are reported, not sent. When the token budget is reached, ` +
	`earlier results lose their content (truncated: true) and the most recently requested files are re-sent.`

// readFilesInputSchema is the JSON Schema of [ReadFilesInput].
var readFilesInputSchema = json.RawMessage(`{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"},` +
	`"description":"absolute paths of the files to read, e.g. [\"/repo/main.go\"]"}},"required":["paths"],"additionalProperties":false}`)

func ephemeral() *chatwire.CacheControl { return &chatwire.CacheControl{Type: "ephemeral"} }

// AnthropicFromHistory converts a system prompt and a history to the Anthropic Messages format:
// the system prompt is one text block; assistant tool calls become tool_use blocks; tool
// messages become tool_result blocks in a user message; consecutive messages of the same role
// are merged, as the API requires. cache_control {"type":"ephemeral"} is set on the system block
// (so the stable prefix stays cached across resets) and on the last block of the last message
// (the moving breakpoint). The read_files tool is declared in Tools.
func AnthropicFromHistory(system string, history []Message) chatwire.AnthropicMessages {
	return anthropicFromHistory(system, history, toolResultText)
}

// anthropicFromHistory is AnthropicFromHistory with the text of tool messages from toolText.
func anthropicFromHistory(system string, history []Message, toolText func(*Message) string) chatwire.AnthropicMessages {
	out := chatwire.AnthropicMessages{Messages: make([]chatwire.AnthropicMessage, 0, len(history)),
		Tools: []chatwire.AnthropicTool{{Name: ReadFilesToolName, Description: ReadFilesToolDescription, InputSchema: readFilesInputSchema}}}
	if system != "" {
		out.System = []chatwire.AnthropicBlock{{Type: "text", Text: system, CacheControl: ephemeral()}}
	}
	for i := range history {
		m := &history[i]
		role := "user"
		var blocks []chatwire.AnthropicBlock
		switch m.Role {
		case RoleAssistant:
			role = "assistant"
			if m.Text != "" {
				blocks = append(blocks, chatwire.AnthropicBlock{Type: "text", Text: m.Text})
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, chatwire.AnthropicBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: objectOrEmpty(tc.Input)})
			}
		case RoleTool:
			blocks = append(blocks, chatwire.AnthropicBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: toolText(m)})
		default:
			if m.Text != "" {
				blocks = append(blocks, chatwire.AnthropicBlock{Type: "text", Text: m.Text})
			}
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(out.Messages); n > 0 && out.Messages[n-1].Role == role {
			out.Messages[n-1].Content = append(out.Messages[n-1].Content, blocks...)
			continue
		}
		out.Messages = append(out.Messages, chatwire.AnthropicMessage{Role: role, Content: blocks})
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
func toolResultText(m *Message) string {
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

// OpenAIFromHistory converts a system prompt and a history to the OpenAI chat-completions
// format: a system message, user and assistant messages, assistant tool_calls and one tool
// message per result. With opts.CacheControl, the system message and the last message that has
// content carry cache_control {"type":"ephemeral"} on their (single) text part.
func OpenAIFromHistory(system string, history []Message, opts OpenAIExportOptions) chatwire.OpenAIChat {
	return openAIFromHistory(system, history, opts, toolResultText)
}

// openAIFromHistory is OpenAIFromHistory with the text of tool messages from toolText.
func openAIFromHistory(system string, history []Message, opts OpenAIExportOptions, toolText func(*Message) string) chatwire.OpenAIChat {
	out := chatwire.OpenAIChat{Messages: make([]chatwire.OpenAIChatMessage, 0, len(history)+1),
		Tools: []chatwire.OpenAITool{{Type: "function", Function: chatwire.OpenAIToolFunction{Name: ReadFilesToolName,
			Description: ReadFilesToolDescription, Parameters: readFilesInputSchema}}}}
	if system != "" {
		out.Messages = append(out.Messages, chatwire.OpenAIChatMessage{Role: "system", Content: &chatwire.OpenAIContent{Text: system}})
	}
	for i := range history {
		m := &history[i]
		switch m.Role {
		case RoleAssistant:
			msg := chatwire.OpenAIChatMessage{Role: "assistant"}
			if m.Text != "" || len(m.ToolCalls) == 0 {
				msg.Content = &chatwire.OpenAIContent{Text: m.Text}
			}
			for _, tc := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, chatwire.OpenAIToolCall{ID: tc.ID, Type: "function",
					Function: chatwire.OpenAIFunctionCall{Name: tc.Name, Arguments: string(objectOrEmpty(tc.Input))}})
			}
			out.Messages = append(out.Messages, msg)
		case RoleTool:
			out.Messages = append(out.Messages, chatwire.OpenAIChatMessage{Role: "tool", ToolCallID: m.ToolCallID,
				Content: &chatwire.OpenAIContent{Text: toolText(m)}})
		default:
			out.Messages = append(out.Messages, chatwire.OpenAIChatMessage{Role: "user", Content: &chatwire.OpenAIContent{Text: m.Text}})
		}
	}
	if !opts.CacheControl {
		return out
	}
	markOpenAI := func(m *chatwire.OpenAIChatMessage) {
		m.Content.Parts = []chatwire.OpenAIContentPart{{Type: "text", Text: m.Content.Text, CacheControl: ephemeral()}}
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
