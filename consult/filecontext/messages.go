package filecontext

import (
	"bytes"
	"encoding/json"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/consult"
)

// ReadFilesToolName is the name of the tool through which a model asks a [Context] for files.
const ReadFilesToolName = "read_files"

// Role is the author of a [Message].
type Role string

// The roles of a conversation. A tool message answers one tool call of the assistant message
// before it.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one message of a conversation in a provider-neutral form. It is JSON-ready, so
// a host can persist its history and hand it back to [PlanReadFiles] later.
//
// A tool message that answers a read_files call carries the result in ReadFiles; a host that
// stores tool results as JSON text may put the JSON in Text instead, and it is parsed the same way
// (see [ParseReadFilesResult]). A Message is a plain value: it is not safe to modify one
// while another goroutine reads it.
type Message struct {
	Role       Role             `json:"role"`
	Text       string           `json:"text,omitempty"`         // user or assistant text; a tool result as text
	ToolCalls  []ToolCall       `json:"tool_calls,omitempty"`   // assistant only
	ToolCallID string           `json:"tool_call_id,omitempty"` // tool only: the call this message answers
	ReadFiles  *ReadFilesResult `json:"read_files,omitempty"`   // tool only: a structured read_files result
}

// ToolCall is one tool call made by the assistant. Input is the JSON object of arguments;
// for read_files it is {"paths": ["/abs/file.go", ...]}.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ReadFilesInput is the argument object of a read_files tool call.
type ReadFilesInput struct {
	Paths []string `json:"paths" jsonschema:"paths of the files to read, e.g. [\"/repo/main.go\"]"`
}

// ReadFilesResult is the result of one read_files call, as the model sees it:
//
//	{"type":"read_files","files":[{"path":"/a.go","content":"...","status":"sent","tokens":12}]}
//
// Type is always "read_files". Reset is true when this call removed the content of every earlier
// read_files result to stay within the token budget; Note then says what happened and what to
// do.
type ReadFilesResult struct {
	Type  string          `json:"type"`
	Files []ReadFilesFile `json:"files"`
	Reset bool            `json:"reset,omitempty"`
	Note  string          `json:"note,omitempty"`
}

// ReadFilesFile is one entry of a [ReadFilesResult]. Content is present only when Status is
// [FileSent], [FileUpdated] or [FileRestored] (an empty file has empty content). Truncated is true
// when the content was removed to stay within the token budget. Tokens is the size of the
// content in tokens, also for files that were not sent because they do not fit. Message says, for
// a model, why a file was not sent and what to do instead.
type ReadFilesFile struct {
	Path      string         `json:"path"`
	Content   string         `json:"content,omitempty"`
	Truncated bool           `json:"truncated,omitempty"`
	Status    FileStatus     `json:"status,omitempty"`
	Tokens    consult.Tokens `json:"tokens,omitempty"`
	Message   string         `json:"message,omitempty"`
}

// FileStatus says what a read_files call did with one file.
type FileStatus string

// File statuses. The first group puts content in the context or reports that it is already
// there; the others report a file that was not sent ([ReadFilesFile.Err] gives the coded error).
const (
	FileSent             FileStatus = "sent"               // content included
	FileUpdated          FileStatus = "updated"            // content included; it changed since the copy already in context
	FileRestored         FileStatus = "restored"           // re-sent after a reset; not requested by this call
	FileAlreadyInContext FileStatus = "already_in_context" // unchanged since it was sent; not sent again
	FileInSystemPrompt   FileStatus = "in_system_prompt"   // a base file, unchanged; it is in the system prompt
	FileDropped          FileStatus = "dropped"            // removed by a reset and not re-sent for lack of room

	FileNotFound         FileStatus = "not_found"         // NOT_FOUND
	FileIsDirectory      FileStatus = "is_directory"      // IS_DIRECTORY
	FileNotRegular       FileStatus = "not_regular"       // NOT_REGULAR
	FilePermissionDenied FileStatus = "permission_denied" // PERMISSION_DENIED
	FileBinary           FileStatus = "binary"            // BINARY_FILE
	FileTooLarge         FileStatus = "too_large"         // FILE_TOO_LARGE: over a per-file gate
	FileOverBudget       FileStatus = "over_budget"       // BUDGET_EXCEEDED: does not fit what is left of the budget
	FileInvalidPath      FileStatus = "invalid_path"      // INVALID_ARGUMENT
	FileSkipped          FileStatus = "skipped"           // INVALID_ARGUMENT: more paths than one call may read
	FileReadError        FileStatus = "read_error"        // INTERNAL
)

// fileStatusCodes maps the failure statuses to error codes.
var fileStatusCodes = map[FileStatus]agentfiles.Code{
	FileNotFound:         agentfiles.CodeNotFound,
	FileIsDirectory:      agentfiles.CodeIsDirectory,
	FileNotRegular:       consult.CodeNotRegular,
	FilePermissionDenied: agentfiles.CodePermissionDenied,
	FileBinary:           consult.CodeBinaryFile,
	FileTooLarge:         consult.CodeFileTooLarge,
	FileOverBudget:       consult.CodeBudgetExceeded,
	FileInvalidPath:      agentfiles.CodeInvalidArgument,
	FileSkipped:          agentfiles.CodeInvalidArgument,
	FileReadError:        agentfiles.CodeInternal,
}

// HasContent reports whether the entry carries the file's content.
func (f ReadFilesFile) HasContent() bool {
	if f.Truncated {
		return false
	}
	switch f.Status {
	case FileSent, FileUpdated, FileRestored:
		return true
	case "":
		// A bare {path, content} entry, as some hosts write read_files results.
		return f.Content != ""
	}
	return false
}

// isRequest reports whether the entry records a request by the model, which makes the file
// "recently requested" when a reset chooses what to keep.
func (f ReadFilesFile) isRequest() bool {
	return f.Status != FileRestored && f.Status != FileDropped
}

// Err returns the coded *agentfiles.Error for an entry whose file was not sent (its Code is the
// one noted next to the status constants), and nil otherwise.
func (f ReadFilesFile) Err() error {
	code, ok := fileStatusCodes[f.Status]
	if !ok {
		return nil
	}
	return agentfiles.NewError(code, f.Message, f.Path)
}

// JSON returns the result as compact JSON, exactly as it is sent to a model. HTML characters are
// not escaped, so file contents keep their bytes and their token counts.
func (r ReadFilesResult) JSON() string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		// Only strings, bools and integers: encoding cannot fail.
		panic("filecontext: encoding a read_files result: " + err.Error())
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// ParseReadFilesResult parses the JSON text of a tool result. It reports ok=false, without an
// error, when text is not a read_files result (another tool's output, plain text, other JSON),
// so a caller can scan every tool message.
func ParseReadFilesResult(text string) (ReadFilesResult, bool) {
	trimmed := bytes.TrimSpace([]byte(text))
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return ReadFilesResult{}, false
	}
	var r ReadFilesResult
	if err := json.Unmarshal(trimmed, &r); err != nil || r.Type != ReadFilesToolName {
		return ReadFilesResult{}, false
	}
	return r, true
}

// readFilesOf returns the read_files result a message carries, if any.
func readFilesOf(m *Message) (*ReadFilesResult, bool) {
	if m.Role != RoleTool {
		return nil, false
	}
	if m.ReadFiles != nil {
		return m.ReadFiles, true
	}
	if r, ok := ParseReadFilesResult(m.Text); ok {
		return &r, true
	}
	return nil, false
}

// clone returns a deep copy of the message, so that callers cannot change a history they do not
// own.
func (m Message) clone() Message {
	out := m
	if m.ToolCalls != nil {
		out.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
	}
	if m.ReadFiles != nil {
		r := *m.ReadFiles
		r.Files = append([]ReadFilesFile(nil), m.ReadFiles.Files...)
		out.ReadFiles = &r
	}
	return out
}
