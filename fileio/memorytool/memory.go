package memorytool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/internal/utf8cut"
)

// DefaultProject is the fileio project that holds the memories when Options.Project is empty.
const DefaultProject = "memories"

// DefaultMaxViewBytes bounds the text of one view of a file when Options.MaxViewBytes is 0.
const DefaultMaxViewBytes = 256 << 10

// MaxLines is the most lines a file may have for view (the memory tool's documented limit).
const MaxLines = 999_999

// Commands of the memory tool.
const (
	CommandView       = "view"
	CommandCreate     = "create"
	CommandStrReplace = "str_replace"
	CommandInsert     = "insert"
	CommandDelete     = "delete"
	CommandRename     = "rename"
)

// Commands lists the commands of the memory tool, in the order of its documentation.
func Commands() []string {
	return []string{CommandView, CommandCreate, CommandStrReplace, CommandInsert, CommandDelete, CommandRename}
}

// Input is the input of one memory tool call: exactly the tool_use input of Anthropic's memory
// tool (memory_20250818). Which fields a command reads:
//
//	view         path, view_range (optional)
//	create       path, file_text
//	str_replace  path, old_str, new_str
//	insert       path, insert_line, insert_text
//	delete       path
//	rename       old_path, new_path
//
// Fields a command does not read are ignored.
type Input struct {
	Command    string `json:"command" jsonschema:"the operation: view, create, str_replace, insert, delete or rename"`
	Path       string `json:"path,omitempty" jsonschema:"the file or directory, below /memories, e.g. '/memories/notes.md' (all commands but rename)"`
	ViewRange  []int  `json:"view_range,omitempty" jsonschema:"view of a file only: [start, end], 1-based lines, inclusive; end -1 reads to the end"`
	FileText   string `json:"file_text,omitempty" jsonschema:"create: the content of the new file"`
	OldStr     string `json:"old_str,omitempty" jsonschema:"str_replace: the exact text to replace; it must occur exactly once in the file"`
	NewStr     string `json:"new_str,omitempty" jsonschema:"str_replace: the replacement text (empty deletes old_str)"`
	InsertLine *int   `json:"insert_line,omitempty" jsonschema:"insert: the line after which to insert; 0 inserts at the top"`
	InsertText string `json:"insert_text,omitempty" jsonschema:"insert: the text to insert, as whole lines"`
	OldPath    string `json:"old_path,omitempty" jsonschema:"rename: the file or directory to move, e.g. '/memories/draft.md'"`
	NewPath    string `json:"new_path,omitempty" jsonschema:"rename: its new path, which must not exist, e.g. '/memories/final.md'"`
}

// Options configure a Tool. The zero value is valid.
type Options struct {
	// Project is the fileio project that holds the memories: /memories is its root. Empty:
	// DefaultProject. It must pass fileio.ValidateProject.
	Project string
	// MaxViewBytes bounds the text a view of a file returns; a longer view stops at a whole
	// line and says which view_range shows the rest. 0: DefaultMaxViewBytes.
	MaxViewBytes int
}

// Tool runs memory tool commands over a fileio.Service. The tenant is the caller's: the
// agentfiles.AuthContext in the context of each call. A Tool is immutable and safe for
// concurrent use.
type Tool struct {
	svc          *fileio.Service
	project      string
	maxViewBytes int
}

// New returns a Tool that keeps memories in the project opts.Project of svc. A bad option is
// INVALID_CONFIG; a nil svc INVALID_ARGUMENT.
func New(svc *fileio.Service, opts Options) (*Tool, error) {
	if svc == nil {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "the fileio.Service is nil; build one with fileio.NewService", "svc")
	}
	if opts.Project == "" {
		opts.Project = DefaultProject
	}
	if err := fileio.ValidateProject(opts.Project); err != nil {
		return nil, agentfiles.WrapError(agentfiles.CodeInvalidConfig, "memory project: "+err.(*agentfiles.Error).Message, "Project", err)
	}
	if opts.MaxViewBytes < 0 {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "MaxViewBytes must be >= 0 (0: the default)", "MaxViewBytes")
	}
	if opts.MaxViewBytes == 0 {
		opts.MaxViewBytes = DefaultMaxViewBytes
	}
	return &Tool{svc: svc, project: opts.Project, maxViewBytes: opts.MaxViewBytes}, nil
}

// Project returns the fileio project that holds the memories.
func (t *Tool) Project() string { return t.project }

// Result is the tool_result of one memory tool call: its content, and whether to mark it
// is_error.
type Result struct {
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// Execute runs one memory tool call given the tool_use input JSON and returns the tool_result
// to send back to the model: the text of the command's documented result, or for a failure the
// documented error text with IsError set. The error is nil on success, otherwise the
// *agentfiles.Error behind the failure (its message is Result.Content), for hosts that log it
// or branch on its code: NOT_FOUND, ALREADY_EXISTS, INVALID_PATH, INVALID_ARGUMENT, NO_MATCH,
// AMBIGUOUS_MATCH, CONFLICT, and the fileio codes of the store (RESOURCE_BUSY, RATE_LIMITED,
// UNAVAILABLE are retryable). Unknown fields of the input are ignored.
func (t *Tool) Execute(ctx context.Context, input json.RawMessage) (Result, error) {
	var in Input
	if err := json.Unmarshal(bytes.TrimSpace(input), &in); err != nil {
		err := invalid("Error: The input is not a memory tool input: it must be a JSON object with a \"command\" and that command's fields")
		return Result{Content: err.Message, IsError: true}, err
	}
	text, err := t.Run(ctx, in)
	if err != nil {
		return Result{Content: ErrorText(err), IsError: true}, err
	}
	return Result{Content: text}, nil
}

// ErrorText is the tool_result text for an error returned by Run or Execute: the message of
// the *agentfiles.Error (the memory tool's documented error text), or a generic text for an
// error without a code.
func ErrorText(err error) string {
	var e *agentfiles.Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	switch agentfiles.ErrorCode(err) {
	case agentfiles.CodeTimeout:
		return "Error: The memory operation ran out of time; retry it"
	case agentfiles.CodeCanceled:
		return "Error: The memory operation was canceled"
	}
	return "Error: The memory store failed; retry later"
}

// Run runs one memory tool command and returns the text of its documented result. A failure is
// an *agentfiles.Error whose Message is the text to send back with is_error (see Execute).
func (t *Tool) Run(ctx context.Context, in Input) (string, error) {
	switch in.Command {
	case CommandView:
		return t.view(ctx, in.Path, in.ViewRange)
	case CommandCreate:
		return t.create(ctx, in.Path, in.FileText)
	case CommandStrReplace:
		return t.strReplace(ctx, in.Path, in.OldStr, in.NewStr)
	case CommandInsert:
		return t.insert(ctx, in.Path, in.InsertLine, in.InsertText)
	case CommandDelete:
		return t.delete(ctx, in.Path)
	case CommandRename:
		return t.rename(ctx, in.OldPath, in.NewPath)
	case "":
		return "", invalid("Error: The `command` parameter is required: view, create, str_replace, insert, delete or rename")
	}
	return "", invalid("Error: Unknown command " + strconv.Quote(utf8cut.Shorten(in.Command, 32, "…")) + "; use view, create, str_replace, insert, delete or rename")
}

// path checks the path argument of command: required, below /memories.
func requirePath(name, command, p string) (string, error) {
	if p == "" {
		return "", invalid("Error: The `" + name + "` parameter is required for " + command + ", e.g. /memories/notes.md")
	}
	return ProjectPath(p)
}

func invalid(msg string) *agentfiles.Error {
	return agentfiles.NewError(agentfiles.CodeInvalidArgument, msg, "")
}

// fail returns the error of a failed store call, with msg as its text when msg is not empty
// and the code of err. Errors without a message of their own get "Error: " and the store's
// message, which says what to do next.
func fail(err error, msg string) error {
	var e *agentfiles.Error
	if !errors.As(err, &e) {
		return agentfiles.WrapError(agentfiles.ErrorCode(err), ErrorText(err), "", err)
	}
	if msg == "" {
		msg = "Error: " + e.Message
	}
	return agentfiles.WrapError(e.Code, msg, "", err)
}

// is reports whether err has the code c.
func is(err error, c agentfiles.Code) bool { return agentfiles.ErrorCode(err) == c }
