package filecontext

import (
	"fmt"
	"slices"
	"sort"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/consult"
)

// ReadFilesRequest is one read_files call to plan: the ID of the tool call it answers and the
// files as read (see [ReadForContext]).
type ReadFilesRequest struct {
	CallID string
	Reads  []FileRead
}

// HistoryEdit replaces the message at Index of the history a plan was computed from.
type HistoryEdit struct {
	Index   int
	Message Message
}

// Usage is the token accounting of a conversation's files. TotalTokens =
// BaseTokens + MessageTokens and never exceeds BudgetTokens after a planned turn (unless the base
// alone does, which [LoadBaseFiles] prevents).
type Usage struct {
	BudgetTokens  consult.Tokens `json:"budget_tokens"`
	BaseTokens    consult.Tokens `json:"base_tokens"`    // base file content in the system prompt
	MessageTokens consult.Tokens `json:"message_tokens"` // file content in read_files results, every version
	TotalTokens   consult.Tokens `json:"total_tokens"`
}

// ReadFilesPlan is the update a read_files call makes to a history: the tool result to append
// and, when the budget forced a reset, the earlier messages to replace. Apply performs it.
type ReadFilesPlan struct {
	CallID string
	Result ReadFilesResult
	Reset  bool          // earlier read_files results lost their content (see Edits)
	Edits  []HistoryEdit // replacements of earlier messages; empty unless Reset
	Usage  Usage
}

// Apply returns a new history: history with the edits made and the tool result appended as a
// tool message answering CallID. history must be the slice the plan was computed from; it is not
// modified.
func (p ReadFilesPlan) Apply(history []Message) []Message {
	out := make([]Message, len(history), len(history)+1)
	copy(out, history)
	return p.applyInPlace(out)
}

func (p ReadFilesPlan) applyInPlace(history []Message) []Message {
	for _, e := range p.Edits {
		history[e.Index] = e.Message
	}
	result := p.Result
	return append(history, Message{Role: RoleTool, ToolCallID: p.CallID, ReadFiles: &result})
}

// PlanReadFiles is the pure core of a [Context], for hosts that own their message list. It
// derives the files in context from the read_files results in history, decides what the call
// req sends, and returns the update; it does no I/O and changes none of its arguments.
//
//   - A file whose content equals the latest copy in context is not sent again
//     (already_in_context); an unchanged base file is in_system_prompt; a changed file is re-sent
//     (updated). Earlier copies stay where they are, so the cached prefix stays valid — unless
//     the file changed back to a version still in context: sending that again would put it in
//     context twice, so the call resets as below.
//   - A file over a per-file gate is too_large; a binary or unreadable file is reported.
//   - When the base files, the content already in messages and the new content together exceed
//     the budget, every earlier read_files result is reset to path-only entries
//     (truncated: true), and files are re-chosen and sent in the new result: the requested ones
//     first, up to the full budget, then earlier ones from the most recently requested, up to
//     [Options.RefillPercent] of the room the base files leave, so that the next turns append
//     instead of resetting again. Files that are not re-sent are reported with their size in
//     tokens.
//
// The cost is linear in the number of read_files entries in history, plus counting the tokens of
// the files read. The error is non-nil only when req.CallID is empty.
func PlanReadFiles(history []Message, base []BaseFile, req ReadFilesRequest, opts Options) (ReadFilesPlan, error) {
	if req.CallID == "" {
		return ReadFilesPlan{}, agentfiles.NewError(agentfiles.CodeInvalidArgument,
			"the request has no tool call ID; pass the ID of the read_files call being answered", "CallID")
	}
	opts = opts.withDefaults()
	st := parseContext(history, opts.Counter)
	return planReadFiles(st, history, base, req, opts), nil
}

// ctxFile is what the history says about one path.
type ctxFile struct {
	path         string
	order        int    // position of first appearance
	hasContent   bool   // some entry carries content
	latest       string // content of the latest entry with content
	latestTokens consult.Tokens
	latestAt     [2]int // message and entry index of that entry
	lastRequest  int    // sequence number of the latest request; -1 if never requested
	copies       []string
}

// holds reports whether some copy of the file in context has exactly content.
func (f *ctxFile) holds(content string) bool {
	return f != nil && slices.Contains(f.copies, content)
}

// ctxState is the parsed view of a history.
type ctxState struct {
	files         map[string]*ctxFile
	order         []*ctxFile
	contentTokens consult.Tokens // every content entry, every version
	contentMsgs   []int          // messages with at least one content entry
	seq           int
}

// parseContext walks the read_files results of history in order.
func parseContext(history []Message, counter consult.TokenCounter) *ctxState {
	st := &ctxState{files: make(map[string]*ctxFile)}
	for mi := range history {
		r, ok := readFilesOf(&history[mi])
		if !ok {
			continue
		}
		withContent := false
		for fi, e := range r.Files {
			f := st.files[e.Path]
			if f == nil {
				f = &ctxFile{path: e.Path, order: len(st.order), lastRequest: -1}
				st.files[e.Path] = f
				st.order = append(st.order, f)
			}
			if e.isRequest() {
				f.lastRequest = st.seq
				st.seq++
			}
			if !e.HasContent() {
				continue
			}
			tokens := entryTokens(e, counter)
			f.hasContent, f.latest, f.latestTokens, f.latestAt = true, e.Content, tokens, [2]int{mi, fi}
			f.copies = append(f.copies, e.Content)
			st.contentTokens += tokens
			withContent = true
		}
		if withContent {
			st.contentMsgs = append(st.contentMsgs, mi)
		}
	}
	return st
}

// candidate is a file that wants room in the context.
type candidate struct {
	entry  int // index in the result's Files, or -1 for an earlier file
	file   *ctxFile
	path   string
	body   string
	tokens consult.Tokens
	status FileStatus
}

func planReadFiles(st *ctxState, history []Message, base []BaseFile, req ReadFilesRequest, opts Options) ReadFilesPlan {
	baseByPath := make(map[string]*BaseFile, len(base))
	for i := range base {
		baseByPath[base[i].Path] = &base[i]
	}
	baseTok := baseTokens(base)
	room := opts.BudgetTokens - baseTok // for files in messages
	perFile := opts.perFileTokenLimit()

	entries := make([]ReadFilesFile, 0, len(req.Reads))
	var cands []candidate
	var need consult.Tokens
	revert := false // a file changed back to a version still in context: sending it needs a reset
	seen := make(map[string]bool, len(req.Reads))
	handled := make(map[string]bool, len(req.Reads)) // requested and not skipped: never restored
	for _, r := range req.Reads {
		clean, bad := cleanContextPath(r.Path)
		if bad != "" {
			entries = append(entries, ReadFilesFile{Path: r.Path, Status: FileInvalidPath, Message: bad})
			continue
		}
		if seen[clean] {
			continue
		}
		seen[clean] = true
		e := ReadFilesFile{Path: clean}
		if len(seen) <= opts.MaxReadPaths {
			handled[clean] = true
		}
		switch {
		case len(seen) > opts.MaxReadPaths:
			e.Status, e.Message = FileSkipped, skippedError(clean, opts.MaxReadPaths).Message
		case r.Err != nil:
			e.Status, e.Message = classifyReadError(r.Err)
		case binaryReason(r.Content) != "":
			e.Status, e.Message = FileBinary, binaryReason(r.Content)
		}
		if e.Status != "" {
			entries = append(entries, e)
			continue
		}
		e.Tokens = opts.Counter.CountTokens(r.Content)
		f := st.files[clean]
		b := baseByPath[clean]
		switch {
		case e.Tokens > perFile:
			e.Status = FileTooLarge
			e.Message = fmt.Sprintf("%d tokens is over the per-file limit of %d tokens (%d%% of the %d-token budget); it was not sent",
				e.Tokens, perFile, opts.MaxFileBudgetPercent, opts.BudgetTokens)
			if opts.MaxFileTokens > 0 && perFile == opts.MaxFileTokens {
				e.Message = fmt.Sprintf("%d tokens is over the per-file limit of %d tokens; it was not sent", e.Tokens, perFile)
			}
		case b != nil && b.Included() && b.Content == r.Content:
			e.Status = FileInSystemPrompt
		case f != nil && f.hasContent && f.latest == r.Content:
			e.Status = FileAlreadyInContext
			// It is a candidate only if a reset removes it; see below.
			cands = append(cands, candidate{entry: len(entries), file: f, path: clean, body: r.Content, tokens: e.Tokens, status: FileSent})
		case e.Tokens > room:
			e.Status = FileOverBudget
			e.Message = fmt.Sprintf("%d tokens do not fit: the budget is %d tokens and the base files take %d; it was not sent",
				e.Tokens, opts.BudgetTokens, baseTok)
		default:
			e.Status = FileSent
			if (f != nil && f.hasContent) || (b != nil && b.Included()) {
				e.Status = FileUpdated
			}
			revert = revert || f.holds(r.Content)
			cands = append(cands, candidate{entry: len(entries), file: f, path: clean, body: r.Content, tokens: e.Tokens, status: e.Status})
			need += e.Tokens
		}
		entries = append(entries, e)
	}

	plan := ReadFilesPlan{CallID: req.CallID}
	if !revert && baseTok+st.contentTokens+need <= opts.BudgetTokens {
		for _, c := range cands {
			if entries[c.entry].Status != FileAlreadyInContext {
				entries[c.entry].Content = c.body
			}
		}
		plan.Result = ReadFilesResult{Type: ReadFilesToolName, Files: nonNil(entries)}
		plan.Usage = Usage{BudgetTokens: opts.BudgetTokens, BaseTokens: baseTok,
			MessageTokens: st.contentTokens + need, TotalTokens: baseTok + st.contentTokens + need}
		return plan
	}

	// Reset: strip every earlier content entry, then re-choose by priority.
	plan.Reset = true
	plan.Edits = stripContent(history, st, func(int, int, ReadFilesFile) bool { return true })
	for _, f := range earlierByRecency(st, handled) {
		cands = append(cands, candidate{entry: -1, file: f, path: f.path, body: f.latest, tokens: f.latestTokens, status: FileRestored})
	}
	// The requested files may use the whole room; earlier files are restored only up to the
	// refill share, which leaves headroom for the turns that follow to append.
	free := room
	refill := refillTokens(room, opts)
	var extra []ReadFilesFile // restored and dropped earlier files
	for _, c := range cands {
		fits := c.tokens <= free
		if c.entry < 0 {
			fits = room-free+c.tokens <= refill
		}
		if fits {
			free -= c.tokens
		}
		if c.entry >= 0 {
			e := &entries[c.entry]
			if fits {
				e.Status, e.Content = c.status, c.body
			} else {
				e.Status = FileOverBudget
				e.Message = fmt.Sprintf("%d tokens do not fit in the %d tokens left of the %d-token budget after the base files and the files above; read fewer files at once",
					c.tokens, free, opts.BudgetTokens)
			}
			continue
		}
		if fits {
			extra = append(extra, ReadFilesFile{Path: c.path, Content: c.body, Status: FileRestored, Tokens: c.tokens})
		} else {
			extra = append(extra, ReadFilesFile{Path: c.path, Truncated: true, Status: FileDropped, Tokens: c.tokens,
				Message: "removed to stay within the token budget; read it again if you need it"})
		}
	}
	// Earlier files are listed in the order they were first read.
	sort.SliceStable(extra, func(i, j int) bool { return st.files[extra[i].Path].order < st.files[extra[j].Path].order })
	entries = append(entries, extra...)
	plan.Result = ReadFilesResult{Type: ReadFilesToolName, Files: nonNil(entries), Reset: true,
		Note: fmt.Sprintf("%s: the content of every earlier read_files result was removed "+
			"(those entries now say truncated). Files marked restored were re-sent, most recently requested first, "+
			"up to %d%% of the budget so that the next turns have room; files marked dropped were not: "+
			"read them again if you need them.", resetCause(revert, opts), opts.RefillPercent)}
	used := room - free
	plan.Usage = Usage{BudgetTokens: opts.BudgetTokens, BaseTokens: baseTok, MessageTokens: used, TotalTokens: baseTok + used}
	return plan
}

func resetCause(revert bool, opts Options) string {
	if revert {
		return "A file changed back to a version already in context"
	}
	return fmt.Sprintf("The %d-token file budget was reached", opts.BudgetTokens)
}

func nonNil(entries []ReadFilesFile) []ReadFilesFile {
	if entries == nil {
		return []ReadFilesFile{}
	}
	return entries
}

// earlierByRecency returns the files with content in context that are not in skip, the most
// recently requested first (never-requested ones last, in first-read order).
func earlierByRecency(st *ctxState, skip map[string]bool) []*ctxFile {
	var out []*ctxFile
	for _, f := range st.order {
		if f.hasContent && !skip[f.path] {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].lastRequest > out[j].lastRequest })
	return out
}

// stripContent returns edits that turn the content entries of history for which strip returns
// true (given message index, entry index and entry) into path-only entries (truncated: true).
func stripContent(history []Message, st *ctxState, strip func(mi, fi int, e ReadFilesFile) bool) []HistoryEdit {
	edits := make([]HistoryEdit, 0, len(st.contentMsgs))
	for _, mi := range st.contentMsgs {
		r, _ := readFilesOf(&history[mi])
		files := make([]ReadFilesFile, len(r.Files))
		changed := false
		for fi, e := range r.Files {
			if !e.HasContent() || !strip(mi, fi, e) {
				files[fi] = e
				continue
			}
			stripped := ReadFilesFile{Path: e.Path, Truncated: true}
			if !e.isRequest() {
				stripped.Status = e.Status // keep "restored" so recency survives the next reset
			}
			files[fi] = stripped
			changed = true
		}
		if !changed {
			continue
		}
		m := history[mi].clone()
		m.Text = ""
		m.ReadFiles = &ReadFilesResult{Type: ReadFilesToolName, Files: files, Reset: r.Reset, Note: r.Note}
		edits = append(edits, HistoryEdit{Index: mi, Message: m})
	}
	return edits
}

// refillTokens is how much file content a reset leaves in messages: RefillPercent of room.
func refillTokens(room consult.Tokens, opts Options) consult.Tokens {
	return room * consult.Tokens(opts.RefillPercent) / 100
}

// planBaseReset is what a change of the base files does to the history. The prompt changed, so
// the cache starts over and earlier messages may be edited at no extra cost: every copy of a
// file that is now in the system prompt is stripped (its content would otherwise be there
// twice), and if the rest no longer fits beside the new base, content entries are stripped in
// place except the latest copy of the most recently requested files that fit in the refill share
// of the room (see [Options.RefillPercent]). There is no new
// tool result to carry re-sent files. It returns no edits when nothing needs to change.
func planBaseReset(history []Message, base []BaseFile, opts Options) []HistoryEdit {
	st := parseContext(history, opts.Counter)
	inBase := make(map[string]bool, len(base))
	for _, b := range base {
		if b.Included() {
			inBase[b.Path] = true
		}
	}
	var rest consult.Tokens // content of files not in the base, every version
	for mi := range history {
		if r, ok := readFilesOf(&history[mi]); ok {
			for _, e := range r.Files {
				if e.HasContent() && !inBase[e.Path] {
					rest += entryTokens(e, opts.Counter)
				}
			}
		}
	}
	room := opts.BudgetTokens - baseTokens(base)
	if rest <= room {
		return stripContent(history, st, func(_, _ int, e ReadFilesFile) bool { return inBase[e.Path] })
	}
	free := refillTokens(room, opts)
	keep := make(map[[2]int]bool)
	for _, f := range earlierByRecency(st, inBase) {
		if f.latestTokens <= free {
			free -= f.latestTokens
			keep[f.latestAt] = true
		}
	}
	return stripContent(history, st, func(mi, fi int, _ ReadFilesFile) bool { return !keep[[2]int{mi, fi}] })
}

// entryTokens is the size of an entry's content. A recorded count is trusted (recounting every
// turn would dominate the cost of a turn) when it is plausible: no tokenizer makes more tokens
// than bytes.
func entryTokens(e ReadFilesFile, counter consult.TokenCounter) consult.Tokens {
	if e.Tokens <= 0 || int64(e.Tokens) > int64(len(e.Content)) {
		return counter.CountTokens(e.Content)
	}
	return e.Tokens
}
