package filecontext

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/consult/filecontext/chatwire"
)

// Context is the file context of one conversation, built to keep a provider's prompt cache
// warm while the files stay within a token budget. Build one with [New].
//
// Base files (knowledge files and the initial context) are rendered once into the system prompt
// ([Context.SystemPrompt]), whose bytes do not change from turn to turn; only
// [Context.RefreshBase] changes it, and it reports which base files changed. Every other file
// enters the conversation as a read_files tool result appended to the message history the
// Context keeps; the files in context are derived from those results. When a read would exceed the budget, earlier results are reset to
// path-only entries and files are re-chosen (see [PlanReadFiles], the pure function behind it,
// for hosts that keep their own message list).
//
// A file that changed on disk is re-sent when it is read again, and its earlier copy stays where
// it is (editing it would invalidate the cached prefix) until a reset; both copies count against
// the budget. A file that changed back to an earlier version still in context is re-sent with a
// reset, so that no content is ever in context twice.
//
// A Context is safe for concurrent use: each method sees and leaves a consistent history.
type Context struct {
	opts      Options
	basePaths []string

	mu       sync.Mutex
	base     []BaseFile
	system   string
	history  []Message
	nextCall int
	resets   int
	meter    *CacheMeter
	// rendered memoizes the JSON text of the read_files results in history, which every export
	// and the meter need: a result is never changed in place (an edit replaces the message), so
	// its text is rendered once.
	rendered map[*ReadFilesResult]string
}

// New reads the base files through opts.Source and renders the system prompt. Base files that
// cannot be read or do not fit the budget are kept in the report ([Context.BaseFiles]) and named
// in the prompt, never silently dropped. The error is non-nil only when ctx is done (CANCELED
// or TIMEOUT).
func New(ctx context.Context, basePaths []string, opts Options) (*Context, error) {
	opts = opts.withDefaults()
	base, err := LoadBaseFiles(ctx, basePaths, opts)
	if err != nil {
		return nil, err
	}
	c := &Context{opts: opts, basePaths: slices.Clone(basePaths), base: base, meter: NewCacheMeter(opts)}
	c.system = RenderSystemPrompt(opts.Instructions, base)
	opts.Logger.Debug("filecontext: created", "base_files", len(base), "base_tokens", baseTokens(base),
		"budget_tokens", opts.BudgetTokens)
	return c, nil
}

// SystemPrompt returns the system prompt: the instructions and the base files. It returns the
// same bytes on every call until a [Context.RefreshBase] reports a change.
func (c *Context) SystemPrompt() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.system
}

// BaseFiles reports every base file with its status: in the system prompt, or why not.
func (c *Context) BaseFiles() []BaseFile {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.base)
}

// BaseRefresh is the outcome of [Context.RefreshBase].
type BaseRefresh struct {
	Changed []BaseFileChange // empty: the system prompt is unchanged
	// Reset is true when earlier read_files results were edited: copies of files now in the
	// system prompt lost their content, and, if the new base left too little room, so did other
	// entries (the latest copies of the most recently requested files are kept in place, up to
	// Options.RefillPercent of the room).
	Reset bool
	Usage Usage
}

// RefreshBase re-reads the base files. When none changed, nothing changes (the system prompt
// keeps its bytes). When some did, the system prompt is re-rendered — a deliberate, reported
// event that invalidates the prompt cache — and, if the new base leaves too little room, earlier
// read_files results lose content until the rest fits in Options.RefillPercent of the room left,
// as after any reset. The error is non-nil only when ctx is done.
func (c *Context) RefreshBase(ctx context.Context) (BaseRefresh, error) {
	base, err := LoadBaseFiles(ctx, c.basePaths, c.opts)
	if err != nil {
		return BaseRefresh{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	changes := diffBase(c.base, base)
	if len(changes) == 0 {
		return BaseRefresh{Usage: c.usageLocked()}, nil
	}
	c.base = base
	c.system = RenderSystemPrompt(c.opts.Instructions, base)
	edits := planBaseReset(c.history, base, c.opts)
	for _, e := range edits {
		c.history[e.Index] = e.Message
	}
	if len(edits) > 0 {
		c.resets++
	}
	usage := c.usageLocked()
	c.opts.Logger.Debug("filecontext: base files changed", "changed", len(changes), "reset", len(edits) > 0,
		"total_tokens", usage.TotalTokens)
	return BaseRefresh{Changed: changes, Reset: len(edits) > 0, Usage: usage}, nil
}

// Append adds user or assistant messages (with their tool calls) to the history. Tool results
// for read_files come from [Context.ReadFiles] or [Context.AnswerReadFiles]; other tools'
// results may be appended as tool messages with Text. If any message is refused, none of msgs
// is added:
//
//   - INVALID_ARGUMENT: a role other than user, assistant and tool; tool calls on anything but
//     an assistant message, or a tool call without an ID; a tool message without the ToolCallID
//     of a call that an earlier assistant message holds.
//   - ALREADY_EXISTS: a tool call whose ID is already in the history; a tool message answering
//     a call that is already answered; a read_files result that would put a file's content in
//     context twice — content equal to a copy of the same file already in the messages or in the
//     system prompt, or the same file twice in one result.
func (c *Context) Append(msgs ...Message) error {
	for i, m := range msgs {
		switch m.Role {
		case RoleUser, RoleAssistant:
			if m.ToolCallID != "" || m.ReadFiles != nil || (m.Role == RoleUser && len(m.ToolCalls) > 0) {
				return agentfiles.NewError(agentfiles.CodeInvalidArgument,
					"only an assistant message may carry tool calls, and only a tool message answers one", fmt.Sprintf("message %d", i))
			}
			for _, tc := range m.ToolCalls {
				if tc.ID == "" {
					return agentfiles.NewError(agentfiles.CodeInvalidArgument, "every tool call needs an ID", fmt.Sprintf("message %d", i))
				}
			}
		case RoleTool:
			if m.ToolCallID == "" {
				return agentfiles.NewError(agentfiles.CodeInvalidArgument, "a tool message needs the ToolCallID of the call it answers", fmt.Sprintf("message %d", i))
			}
		default:
			return agentfiles.NewError(agentfiles.CodeInvalidArgument, "role must be user, assistant or tool", string(m.Role))
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkAppendLocked(msgs); err != nil {
		return err
	}
	for _, m := range msgs {
		c.history = append(c.history, m.clone())
	}
	return nil
}

// ReadFiles reads paths and adds them to the conversation as if the model had called read_files:
// it appends an assistant message with the call and the tool message with the result, and
// returns the result. Use it to attach files on the host's initiative; answer a model's own call
// with [Context.AnswerReadFiles]. Files are read outside the lock, so slow reads do not block
// other callers. The Anthropic API wants the conversation to open with a user message: Append
// one before the first ReadFiles. Per-file problems are statuses in the result; the error is
// non-nil only for an empty paths list (INVALID_ARGUMENT) or a done ctx (CANCELED, or TIMEOUT
// when its deadline passed, wrapping ctx.Err()), and then nothing is appended.
func (c *Context) ReadFiles(ctx context.Context, paths []string) (ReadFilesResult, error) {
	if len(paths) == 0 {
		return ReadFilesResult{}, agentfiles.NewError(agentfiles.CodeInvalidArgument, "pass at least one path to read", "paths")
	}
	reads := ReadForContext(ctx, paths, c.opts)
	if err := ctx.Err(); err != nil {
		return ReadFilesResult{}, ctxError("reading files was cancelled; nothing was added", err)
	}
	input, _ := json.Marshal(ReadFilesInput{Paths: paths})
	c.mu.Lock()
	defer c.mu.Unlock()
	calls := callsOf(c.history)
	var id string
	for {
		c.nextCall++
		id = fmt.Sprintf("read_files_%d", c.nextCall)
		if _, used := calls[id]; !used { // a host may have used the same scheme
			break
		}
	}
	c.history = append(c.history, Message{Role: RoleAssistant,
		ToolCalls: []ToolCall{{ID: id, Name: ReadFilesToolName, Input: input}}})
	return c.planLocked(id, reads), nil
}

// AnswerReadFiles answers a read_files tool call of the model. The assistant message holding the
// call must already be in the history (see [Context.Append]) and the call must not be
// answered yet (ALREADY_EXISTS when it is); its input must be {"paths": [...]}. Otherwise the
// error is INVALID_ARGUMENT and nothing is appended.
func (c *Context) AnswerReadFiles(ctx context.Context, call ToolCall) (ReadFilesResult, error) {
	if call.Name != ReadFilesToolName {
		return ReadFilesResult{}, agentfiles.NewError(agentfiles.CodeInvalidArgument, "this is not a read_files call; answer it yourself", call.Name)
	}
	var in ReadFilesInput
	dec := json.NewDecoder(bytes.NewReader(call.Input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || len(in.Paths) == 0 {
		return ReadFilesResult{}, agentfiles.NewError(agentfiles.CodeInvalidArgument,
			`the input must be {"paths": ["/abs/file", ...]} with at least one path`, string(call.Input))
	}
	c.mu.Lock()
	err := c.checkPendingLocked(call.ID)
	c.mu.Unlock()
	if err != nil {
		return ReadFilesResult{}, err
	}
	reads := ReadForContext(ctx, in.Paths, c.opts)
	if err := ctx.Err(); err != nil {
		return ReadFilesResult{}, ctxError("reading files was cancelled; nothing was added", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkPendingLocked(call.ID); err != nil { // another goroutine may have answered it
		return ReadFilesResult{}, err
	}
	return c.planLocked(call.ID, reads), nil
}

// checkPendingLocked reports an error unless an assistant message holds the call and no tool
// message answers it yet.
func (c *Context) checkPendingLocked(id string) error {
	for i := len(c.history) - 1; i >= 0; i-- {
		m := &c.history[i]
		if m.Role == RoleTool && m.ToolCallID == id {
			return errAnswered(id)
		}
		if m.Role == RoleAssistant {
			for _, tc := range m.ToolCalls {
				if tc.ID == id {
					return nil
				}
			}
		}
	}
	return agentfiles.NewError(agentfiles.CodeInvalidArgument, "no assistant message holds this tool call; Append the assistant message first", id)
}

func errAnswered(id string) *agentfiles.Error {
	return agentfiles.NewError(agentfiles.CodeAlreadyExists, "this tool call is already answered; answer each call once", id)
}

// callsOf maps the ID of every tool call in history to whether a tool message answers it.
func callsOf(history []Message) map[string]bool {
	calls := make(map[string]bool)
	for i := range history {
		m := &history[i]
		for _, tc := range m.ToolCalls {
			if _, ok := calls[tc.ID]; !ok {
				calls[tc.ID] = false
			}
		}
		if m.Role == RoleTool {
			calls[m.ToolCallID] = true
		}
	}
	return calls
}

// checkAppendLocked refuses msgs (already checked one by one) if, appended in order to the
// history, they would repeat a tool call ID, answer a call that is missing or already answered,
// or put a file's content in context twice.
func (c *Context) checkAppendLocked(msgs []Message) error {
	calls := callsOf(c.history)
	var inContext map[string][]string // path -> every content of it in context
	for i := range msgs {
		m := &msgs[i]
		arg := fmt.Sprintf("message %d", i)
		if m.Role == RoleAssistant {
			for _, tc := range m.ToolCalls {
				if _, dup := calls[tc.ID]; dup {
					return agentfiles.NewError(agentfiles.CodeAlreadyExists, "a tool call with this ID is already in the history; give each call its own ID", tc.ID)
				}
				calls[tc.ID] = false
			}
			continue
		}
		if m.Role != RoleTool {
			continue
		}
		answered, held := calls[m.ToolCallID]
		switch {
		case !held:
			return agentfiles.NewError(agentfiles.CodeInvalidArgument, "no assistant message holds this tool call; Append the assistant message first", m.ToolCallID)
		case answered:
			return errAnswered(m.ToolCallID)
		}
		calls[m.ToolCallID] = true
		r, ok := readFilesOf(m)
		if !ok {
			continue
		}
		if inContext == nil {
			inContext = c.contentsLocked()
		}
		for _, e := range r.Files {
			if !e.HasContent() {
				continue
			}
			path, _ := cleanContextPath(e.Path)
			if slices.Contains(inContext[path], e.Content) {
				return agentfiles.NewError(agentfiles.CodeAlreadyExists,
					"this content of the file is already in context (in the system prompt, an earlier result or this one); it would be there twice", arg+": "+e.Path)
			}
			inContext[path] = append(inContext[path], e.Content)
		}
	}
	return nil
}

// contentsLocked maps each path to every content of it in context: the system prompt's copy and
// every copy in the messages.
func (c *Context) contentsLocked() map[string][]string {
	out := make(map[string][]string)
	for _, b := range c.base {
		if b.Included() {
			out[b.Path] = append(out[b.Path], b.Content)
		}
	}
	for i := range c.history {
		if r, ok := readFilesOf(&c.history[i]); ok {
			for _, e := range r.Files {
				if e.HasContent() {
					path, _ := cleanContextPath(e.Path)
					out[path] = append(out[path], e.Content)
				}
			}
		}
	}
	return out
}

func (c *Context) planLocked(callID string, reads []FileRead) ReadFilesResult {
	st := parseContext(c.history, c.opts.Counter)
	plan := planReadFiles(st, c.history, c.base, ReadFilesRequest{CallID: callID, Reads: reads}, c.opts)
	c.history = plan.applyInPlace(c.history)
	if plan.Reset {
		c.resets++
	}
	c.opts.Logger.Debug("filecontext: read_files", "call", callID, "files", len(reads), "reset", plan.Reset,
		"total_tokens", plan.Usage.TotalTokens, "budget_tokens", plan.Usage.BudgetTokens)
	return cloneResult(plan.Result)
}

func cloneResult(r ReadFilesResult) ReadFilesResult {
	r.Files = slices.Clone(r.Files)
	return r
}

// Messages returns a copy of the message history.
func (c *Context) Messages() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Message, len(c.history))
	for i, m := range c.history {
		out[i] = m.clone()
	}
	return out
}

// Resets returns how many times earlier read_files results were reset to fit the budget.
func (c *Context) Resets() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.resets
}

// Usage returns the current token accounting.
func (c *Context) Usage() Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.usageLocked()
}

func (c *Context) usageLocked() Usage {
	st := parseContext(c.history, c.opts.Counter)
	bt := baseTokens(c.base)
	return Usage{BudgetTokens: c.opts.BudgetTokens, BaseTokens: bt,
		MessageTokens: st.contentTokens, TotalTokens: bt + st.contentTokens}
}

// File is one file the conversation knows about, as [Context.Files] reports it.
type File struct {
	Path           string         `json:"path"`
	InSystemPrompt bool           `json:"in_system_prompt"` // a base file whose content is in the prompt
	InMessages     bool           `json:"in_messages"`      // some read_files result carries its content
	Tokens         consult.Tokens `json:"tokens"`           // of the latest copy, if any
}

// Files returns the files in context: base files in their order, then the files of read_files
// results in the order they were first read, each once. A file whose content was reset away is
// still listed, with InMessages false.
func (c *Context) Files() []File {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := parseContext(c.history, c.opts.Counter)
	out := make([]File, 0, len(c.base)+len(st.order))
	listed := make(map[string]int, len(c.base))
	for _, b := range c.base {
		listed[b.Path] = len(out)
		out = append(out, File{Path: b.Path, InSystemPrompt: b.Included(), Tokens: b.Tokens})
	}
	for _, f := range st.order {
		if i, ok := listed[f.path]; ok {
			if f.hasContent {
				out[i].InMessages, out[i].Tokens = true, f.latestTokens
			}
			continue
		}
		out = append(out, File{Path: f.path, InMessages: f.hasContent, Tokens: f.latestTokens})
	}
	return out
}

// ExportAnthropic returns the system prompt and history in the Anthropic Messages format, with
// the cache breakpoint on the last message. See [AnthropicFromHistory]. An export is taken to be
// a request about to be sent: it is recorded in [Context.CacheStats]. (To look at the
// conversation without recording a request, convert [Context.Messages] yourself.)
func (c *Context) ExportAnthropic() chatwire.AnthropicMessages {
	c.mu.Lock()
	defer c.mu.Unlock()
	text := c.toolTextLocked()
	c.meter.record(c.system, c.history, text)
	return anthropicFromHistory(c.system, c.history, text)
}

// ExportOpenAI returns the system prompt and history in the OpenAI chat-completions format. See
// [OpenAIFromHistory]. Like [Context.ExportAnthropic], it records a request in
// [Context.CacheStats].
func (c *Context) ExportOpenAI(opts OpenAIExportOptions) chatwire.OpenAIChat {
	c.mu.Lock()
	defer c.mu.Unlock()
	text := c.toolTextLocked()
	c.meter.record(c.system, c.history, text)
	return openAIFromHistory(c.system, c.history, opts, text)
}

// toolTextLocked returns toolResultText for the messages of the history, rendering each
// read_files result once in its life; results no longer in the history are forgotten.
func (c *Context) toolTextLocked() func(*Message) string {
	next := make(map[*ReadFilesResult]string, len(c.rendered)+2)
	for i := range c.history {
		if r := c.history[i].ReadFiles; r != nil {
			text, ok := c.rendered[r]
			if !ok {
				text = r.JSON()
			}
			next[r] = text
		}
	}
	c.rendered = next
	return func(m *Message) string {
		if m.ReadFiles != nil {
			if text, ok := next[m.ReadFiles]; ok {
				return text
			}
		}
		return toolResultText(m)
	}
}

// CacheStats returns the prompt-cache accounting of the requests exported so far: for the last
// one and in total, the tokens that repeat the start of the previous request (a provider serves
// them from its cache) and the tokens that are new, with a cost estimate when [Options.Prices]
// is set. The counts are those of [Options.Counter].
func (c *Context) CacheStats() CacheStats {
	return c.meter.Stats()
}
