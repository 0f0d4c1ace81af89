package filecontext

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/consult"
)

// BaseFile is one base file of a conversation: a knowledge file or a file of the initial
// context, rendered into the system prompt. Status is [FileInSystemPrompt] when the content is
// in the prompt; otherwise the file is listed in the prompt by path with the reason it was left
// out (Message) and, where known, its size in Tokens. Base files are never silently dropped.
type BaseFile struct {
	Path    string         `json:"path"`
	Content string         `json:"content,omitempty"`
	Status  FileStatus     `json:"status"`
	Tokens  consult.Tokens `json:"tokens,omitempty"`
	Message string         `json:"message,omitempty"`
}

// Included reports whether the file's content is in the system prompt.
func (b BaseFile) Included() bool { return b.Status == FileInSystemPrompt }

// FileRead is the outcome of reading one file for a read_files call: its content, or the error
// that stopped the read. Build it with [ReadForContext], or by hand when the host reads files
// itself.
type FileRead struct {
	Path    string
	Content string
	Err     error
}

// cleanContextPath returns the canonical form of a path used as a key of the context, or a
// message saying why it is not usable.
func cleanContextPath(p string) (string, string) {
	switch {
	case p == "":
		return "", "empty path; pass the path of a file"
	case strings.IndexByte(p, 0) >= 0:
		return "", "the path contains a NUL byte"
	case !utf8.ValidString(p):
		return "", "the path is not valid UTF-8"
	}
	return filepath.Clean(p), ""
}

// ReadForContext reads the files of one read_files call through opts.Source: paths are cleaned
// and de-duplicated in order, and only the first opts.MaxReadPaths are read (the rest come back
// with an INVALID_ARGUMENT error and are reported as skipped). One failing file never stops the
// others. It is safe for concurrent use when the Source is.
func ReadForContext(ctx context.Context, paths []string, opts Options) []FileRead {
	opts = opts.withDefaults()
	reads := make([]FileRead, 0, len(paths))
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		clean, bad := cleanContextPath(p)
		if bad != "" {
			reads = append(reads, FileRead{Path: p, Err: agentfiles.NewError(agentfiles.CodeInvalidArgument, bad, p)})
			continue
		}
		if seen[clean] {
			continue
		}
		seen[clean] = true
		if len(seen) > opts.MaxReadPaths {
			reads = append(reads, FileRead{Path: clean, Err: skippedError(clean, opts.MaxReadPaths)})
			continue
		}
		data, err := opts.Source.ReadFile(ctx, clean, opts.MaxFileBytes)
		if err == nil && int64(len(data)) > opts.MaxFileBytes {
			err = agentfiles.NewError(consult.CodeFileTooLarge, fmt.Sprintf("the file has more than %d bytes", opts.MaxFileBytes), clean)
		}
		reads = append(reads, FileRead{Path: clean, Content: string(data), Err: err})
	}
	return reads
}

func skippedError(path string, maxPaths int) *agentfiles.Error {
	return agentfiles.NewError(agentfiles.CodeInvalidArgument,
		fmt.Sprintf("not read: one call reads at most %d paths; request this file in another call", maxPaths), path)
}

// binaryReason returns why content is not sendable text, or "" when it is text.
func binaryReason(content string) string {
	head := content
	if len(head) > 8000 {
		head = head[:8000]
	}
	if strings.IndexByte(head, 0) >= 0 {
		return "binary file (it contains NUL bytes); it is reported, not sent"
	}
	if !utf8.ValidString(content) {
		return "not UTF-8 text; it is reported, not sent"
	}
	return ""
}

// LoadBaseFiles reads the base files in order through opts.Source and decides which fit in the
// system prompt: in order, while the total stays within opts.BudgetTokens. A file that cannot be
// read, is binary, or does not fit is kept in the list with its status and reason (and its size
// in tokens), so the prompt can say so. The per-file gates do not apply to base files. The error
// is non-nil only when ctx is done.
func LoadBaseFiles(ctx context.Context, paths []string, opts Options) ([]BaseFile, error) {
	opts = opts.withDefaults()
	var base []BaseFile
	seen := make(map[string]bool, len(paths))
	remaining := opts.BudgetTokens
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, ctxError("loading the base files was cancelled", err)
		}
		clean, bad := cleanContextPath(p)
		if bad != "" {
			base = append(base, BaseFile{Path: p, Status: FileInvalidPath, Message: bad})
			continue
		}
		if seen[clean] {
			continue
		}
		seen[clean] = true
		data, err := opts.Source.ReadFile(ctx, clean, bytesCeiling(opts.BudgetTokens))
		if err != nil {
			status, msg := classifyReadError(err)
			if status == FileTooLarge {
				msg += fmt.Sprintf("; that is more than the whole %d-token budget", opts.BudgetTokens)
			}
			base = append(base, BaseFile{Path: clean, Status: status, Message: msg})
			continue
		}
		content := string(data)
		if reason := binaryReason(content); reason != "" {
			base = append(base, BaseFile{Path: clean, Status: FileBinary, Message: reason})
			continue
		}
		tokens := opts.Counter.CountTokens(content)
		switch {
		case tokens > opts.BudgetTokens:
			base = append(base, BaseFile{Path: clean, Status: FileTooLarge, Tokens: tokens,
				Message: fmt.Sprintf("%d tokens is more than the whole %d-token budget; it is not in the prompt", tokens, opts.BudgetTokens)})
		case tokens > remaining:
			base = append(base, BaseFile{Path: clean, Status: FileOverBudget, Tokens: tokens,
				Message: fmt.Sprintf("%d tokens do not fit in the %d tokens left by earlier base files; it is not in the prompt", tokens, remaining)})
		default:
			remaining -= tokens
			base = append(base, BaseFile{Path: clean, Content: content, Status: FileInSystemPrompt, Tokens: tokens})
		}
	}
	return base, nil
}

// ctxError reports that ctx ended during the work msg names: CANCELED, or TIMEOUT when its
// deadline passed, wrapping ctx's error.
func ctxError(msg string, err error) *agentfiles.Error {
	return agentfiles.WrapError(agentfiles.ErrorCode(err), msg, "", err)
}

// bytesCeiling is how many bytes are read at most for a file that must fit in t tokens: no
// tokenizer gives fewer than one token per 16 bytes of ordinary text.
func bytesCeiling(t consult.Tokens) int64 { return int64(t) * 16 }

// baseTokens is the sum of the tokens of the base files in the prompt.
func baseTokens(base []BaseFile) consult.Tokens {
	var total consult.Tokens
	for _, b := range base {
		if b.Included() {
			total += b.Tokens
		}
	}
	return total
}

// RenderSystemPrompt renders the instructions and the base files into a system prompt. The
// output depends only on its arguments, so it is byte-identical for the same base files, which
// is what keeps a provider's prompt cache warm:
//
//	<instructions>
//
//	<base_files count="2" tokens="130">
//	<file path="/docs/a.md" tokens="120">
//	...content...
//	</file>
//	<file path="/docs/big.md" status="too_large" tokens="150000">...why it is left out...</file>
//	</base_files>
//
//	...how read_files results look...
//
// File contents are written verbatim; nothing is escaped.
func RenderSystemPrompt(instructions string, base []BaseFile) string {
	var b strings.Builder
	size := len(instructions) + 512
	for _, f := range base {
		size += len(f.Path) + len(f.Content) + len(f.Message) + 64
	}
	b.Grow(size)
	if instructions != "" {
		b.WriteString(strings.TrimRight(instructions, "\n"))
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "<base_files count=\"%d\" tokens=\"%d\">\n", len(base), baseTokens(base))
	for _, f := range base {
		b.WriteString(`<file path=`)
		b.WriteString(strconv.Quote(f.Path))
		if !f.Included() {
			fmt.Fprintf(&b, " status=%q", f.Status)
			if f.Tokens > 0 {
				fmt.Fprintf(&b, " tokens=\"%d\"", f.Tokens)
			}
			b.WriteString(">")
			b.WriteString(f.Message)
			b.WriteString("</file>\n")
			continue
		}
		fmt.Fprintf(&b, " tokens=\"%d\">\n", f.Tokens)
		b.WriteString(f.Content)
		if !strings.HasSuffix(f.Content, "\n") {
			b.WriteString("\n")
		}
		b.WriteString("</file>\n")
	}
	b.WriteString("</base_files>\n\n")
	b.WriteString(readFilesPromptNote)
	return b.String()
}

const readFilesPromptNote = `The base files above are always in context. Read any other file with the read_files tool ` +
	`({"paths": ["/abs/path"]}); results look like {"type":"read_files","files":[{"path":...,"content":...,"status":"sent"}]}. ` +
	`A file whose status is "already_in_context" or "in_system_prompt" is unchanged since you saw it. ` +
	`An entry with "truncated": true had its content removed to stay within the token budget: read the file again if you need it.
`

// BaseFileChange reports one base file that changed on a [Context.RefreshBase].
type BaseFileChange struct {
	Path      string         `json:"path"`
	Before    FileStatus     `json:"before"` // "" when the file is new to the base
	After     FileStatus     `json:"after"`
	OldTokens consult.Tokens `json:"old_tokens"`
	NewTokens consult.Tokens `json:"new_tokens"`
}

// diffBase lists the base files whose content or status differ between old and new.
func diffBase(old, new []BaseFile) []BaseFileChange {
	before := make(map[string]BaseFile, len(old))
	for _, b := range old {
		before[b.Path] = b
	}
	var changes []BaseFileChange
	for _, n := range new {
		o, had := before[n.Path]
		if had && o.Status == n.Status && o.Content == n.Content && o.Tokens == n.Tokens && o.Message == n.Message {
			continue
		}
		changes = append(changes, BaseFileChange{Path: n.Path, Before: o.Status, After: n.Status,
			OldTokens: o.Tokens, NewTokens: n.Tokens})
	}
	return changes
}
