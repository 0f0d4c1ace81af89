package consult

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
)

// Default limits for [Limits]; the per-file and total byte caps cannot be raised above the Hard
// values.
const (
	DefaultMaxFileBytes  int64 = 1 << 20  // 1 MiB
	DefaultMaxTotalBytes int64 = 8 << 20  // 8 MiB
	HardMaxFileBytes     int64 = 16 << 20 // 16 MiB
	HardMaxTotalBytes    int64 = 64 << 20 // 64 MiB
)

// Limits bounds what [Formatter.Format] puts into a prompt. A file over a per-file limit, or one
// that would push the totals over a total limit, is left out and reported with its numbers; a
// file is never cut. Zero values mean the defaults (bytes) or no limit (tokens; the model's
// context window is checked separately).
type Limits struct {
	MaxFileBytes   int64  // per file, in bytes
	MaxFileTokens  Tokens // per file, in tokens as counted by the TokenCounter
	MaxTotalBytes  int64  // all included file contents, in bytes
	MaxTotalTokens Tokens // all included file contents, in tokens
}

func (l Limits) withDefaults() Limits {
	l.MaxFileBytes = clampBytes(l.MaxFileBytes, DefaultMaxFileBytes, HardMaxFileBytes)
	l.MaxTotalBytes = clampBytes(l.MaxTotalBytes, DefaultMaxTotalBytes, HardMaxTotalBytes)
	return l
}

func clampBytes(v, def, hard int64) int64 {
	if v <= 0 {
		return def
	}
	return min(v, hard)
}

// FormatterOptions configure a [Formatter]. The zero value is usable: the default limits and
// [EstimateCounter].
type FormatterOptions struct {
	Limits  Limits
	Counter TokenCounter // nil means EstimateCounter{}
}

// Formatter assembles files into one prompt text. Build one with [NewFormatter]; it is safe for
// concurrent use if its TokenCounter is.
type Formatter struct {
	limits    Limits
	counter   TokenCounter
	estimated bool // counter is EstimateCounter
}

// NewFormatter returns a Formatter configured by opts.
func NewFormatter(opts FormatterOptions) *Formatter {
	f := &Formatter{limits: opts.Limits.withDefaults(), counter: opts.Counter}
	if f.counter == nil {
		f.counter = EstimateCounter{}
	}
	_, f.estimated = f.counter.(EstimateCounter)
	return f
}

// IncludedFile describes one file whose content is in a [Bundle].
type IncludedFile struct {
	Path      string
	SizeBytes int64
	Tokens    Tokens
}

// Bundle is an assembled prompt text with its accounting.
type Bundle struct {
	// Text is the prompt: a header, a listing grouped by directory, one "File: <path>" block
	// per file, and the problems (entries and files that were not included). The header gives
	// one token count, PromptTokens, marked "(estimated)" when Estimated.
	Text        string
	Files       []IncludedFile
	Errors      []EntryError // expansion errors passed in, then files left out while formatting
	TotalBytes  int64        // sum of the included files' sizes
	FileTokens  Tokens       // sum of the included files' tokens
	TotalTokens Tokens       // tokens of Text, header included
	// PromptTokens is the size of the whole prompt the bundle was formatted for, the count its
	// header states: TotalTokens from [Formatter.Format]; TotalTokens plus the system prompt and
	// the query from [Consultant.Prepare], where it equals [Prepared.PromptTokens].
	PromptTokens Tokens
	// Estimated is true when the token counts come from EstimateCounter, not a tokenizer.
	Estimated bool
}

// binarySniffBytes is how much of a file is checked for NUL bytes, as git does.
const binarySniffBytes = 8000

// Format reads files (absolute paths, typically from [Expand]) and assembles them, appending a
// report of errs and of every file it leaves out: binary files (BINARY_FILE), files over a
// per-file limit (FILE_TOO_LARGE, with the size), files that no longer fit the totals
// (BUDGET_EXCEEDED), and unreadable files. It fails only when ctx ends.
func (f *Formatter) Format(ctx context.Context, files []string, errs []EntryError) (*Bundle, error) {
	return f.format(ctx, files, errs, 0)
}

// format is Format for a prompt that holds aroundTokens besides the bundle's text (the system
// prompt and the query), so that the header can state the size of the whole prompt.
func (f *Formatter) format(ctx context.Context, files []string, errs []EntryError, aroundTokens Tokens) (*Bundle, error) {
	lim, counter := f.limits, f.counter
	b := &Bundle{Errors: slices.Clone(errs), Estimated: f.estimated}
	contents := make([][]byte, 0, len(files))
	for _, p := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, size, ferr := readForPrompt(p, lim.MaxFileBytes)
		if ferr == nil && lim.MaxTotalBytes-b.TotalBytes < size {
			ferr = agentfiles.NewError(CodeBudgetExceeded, "left out: the file has "+formatInt(size)+" bytes and only "+
				formatInt(lim.MaxTotalBytes-b.TotalBytes)+" of the "+formatInt(lim.MaxTotalBytes)+
				" total bytes remain; consult fewer files or split the question", p)
		}
		var tokens Tokens
		if ferr == nil {
			tokens = counter.CountTokens(string(data))
			switch {
			case lim.MaxFileTokens > 0 && tokens > lim.MaxFileTokens:
				ferr = agentfiles.NewError(CodeFileTooLarge, "left out: the file has "+formatInt(int64(tokens))+" tokens, over the per-file limit of "+
					formatInt(int64(lim.MaxFileTokens))+"; ask about a smaller file", p)
			case lim.MaxTotalTokens > 0 && b.FileTokens+tokens > lim.MaxTotalTokens:
				ferr = agentfiles.NewError(CodeBudgetExceeded, "left out: the file has "+formatInt(int64(tokens))+" tokens and only "+
					formatInt(int64(lim.MaxTotalTokens-b.FileTokens))+" of the "+formatInt(int64(lim.MaxTotalTokens))+
					" total tokens remain; consult fewer files or split the question", p)
			}
		}
		if ferr != nil {
			b.Errors = append(b.Errors, EntryError{Entry: p, Path: p, Err: ferr})
			continue
		}
		b.Files = append(b.Files, IncludedFile{Path: p, SizeBytes: size, Tokens: tokens})
		contents = append(contents, data)
		b.TotalBytes += size
		b.FileTokens += tokens
	}
	b.Text, b.TotalTokens = render(b, contents, counter, aroundTokens)
	b.PromptTokens = b.TotalTokens + aroundTokens
	return b, nil
}

// readForPrompt reads a regular file of at most maxBytes that is UTF-8 text.
func readForPrompt(p string, maxBytes int64) ([]byte, int64, *agentfiles.Error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, 0, statError(p, err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, 0, statError(p, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, agentfiles.NewError(CodeNotRegular, "not a regular file; only regular files can be sent", p)
	}
	if fi.Size() > maxBytes {
		return nil, fi.Size(), fileTooLarge(p, fi.Size(), maxBytes)
	}
	data := make([]byte, 0, fi.Size()+1)
	data, err = readAllLimited(fh, data, maxBytes)
	if err != nil {
		if errors.Is(err, errGrew) {
			return nil, int64(len(data)), fileTooLarge(p, int64(len(data)), maxBytes)
		}
		return nil, 0, agentfiles.WrapError(agentfiles.CodeInternal, "cannot read the file", p, err)
	}
	sniff := data[:min(len(data), binarySniffBytes)]
	if bytes.IndexByte(sniff, 0) >= 0 {
		return nil, 0, agentfiles.NewError(CodeBinaryFile, "binary file ("+formatInt(int64(len(data)))+" bytes, contains NUL bytes); only text files are sent", p)
	}
	if !utf8.Valid(data) {
		return nil, 0, agentfiles.NewError(CodeBinaryFile, "not UTF-8 text ("+formatInt(int64(len(data)))+" bytes); only UTF-8 text files are sent, convert it first", p)
	}
	return data, int64(len(data)), nil
}

var errGrew = errors.New("file grew past the limit while being read")

// readAllLimited reads r into buf, failing with errGrew past maxBytes.
func readAllLimited(r io.Reader, buf []byte, maxBytes int64) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, 4096)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > maxBytes {
			return buf, errGrew
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func fileTooLarge(p string, size, maxBytes int64) *agentfiles.Error {
	return agentfiles.NewError(CodeFileTooLarge, "left out: the file has "+formatInt(size)+" bytes, over the per-file limit of "+
		formatInt(maxBytes)+" bytes; files are never cut, so ask about a smaller file", p)
}

// render writes the prompt text and returns it with its token count: file tokens plus the tokens
// of everything around them. The header states the count of the whole prompt, aroundTokens
// included; since its own digits count too, the number is found as a fixed point.
func render(b *Bundle, contents [][]byte, counter TokenCounter, aroundTokens Tokens) (string, Tokens) {
	var scaffold, body strings.Builder
	size := int(b.TotalBytes) + 256*len(b.Files) + 256*len(b.Errors) + 512
	body.Grow(size)
	w := func(s ...string) {
		for _, x := range s {
			body.WriteString(x)
			scaffold.WriteString(x)
		}
	}
	if len(b.Files) > 0 {
		w("\n## Listing\n")
		for _, g := range groupByDir(b.Files) {
			w("\n", g.dir, "/\n")
			for _, f := range g.files {
				w("  ", path.Base(f.Path), " (", formatInt(f.SizeBytes), " bytes)\n")
			}
		}
		w("\n## Contents\n")
	}
	for i, f := range b.Files {
		data := contents[i]
		fence := strings.Repeat("`", max(3, longestRun(data, '`')+1))
		w("\nFile: ", f.Path, "\n", fence, "\n")
		body.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			w("\n")
		}
		w(fence, "\n")
	}
	if len(b.Errors) > 0 {
		w("\n## Problems (not included)\n\n")
		for _, e := range b.Errors {
			w("- ", e.Error(), "\n")
		}
	}
	rest := b.FileTokens + counter.CountTokens(scaffold.String()) // all but the header
	// prompt = rest + header(prompt) + aroundTokens. With EstimateCounter the count only grows
	// with the number's width, so the iteration climbs to the fixed point in a step or two.
	prompt := rest + aroundTokens
	header := renderHeader(b, prompt)
	for range 8 {
		next := rest + counter.CountTokens(header) + aroundTokens
		if next == prompt {
			break
		}
		prompt, header = next, renderHeader(b, next)
	}
	return header + body.String(), prompt - aroundTokens
}

// renderHeader is the first lines of the prompt text, stating promptTokens.
func renderHeader(b *Bundle, promptTokens Tokens) string {
	tokensWord := " tokens"
	if b.Estimated {
		tokensWord = " tokens (estimated)"
	}
	var h strings.Builder
	h.WriteString("# Files\n\n")
	h.WriteString(formatInt(int64(len(b.Files))) + plural(len(b.Files), " file", " files") + ", " + formatInt(b.TotalBytes) + " bytes; ")
	h.WriteString("the prompt has " + formatInt(int64(promptTokens)) + tokensWord)
	if len(b.Errors) > 0 {
		h.WriteString("; " + formatInt(int64(len(b.Errors))) + plural(len(b.Errors), " problem", " problems") + " listed at the end")
	}
	h.WriteString(".\n")
	return h.String()
}

type dirGroup struct {
	dir   string
	files []IncludedFile
}

func groupByDir(files []IncludedFile) []dirGroup {
	idx := map[string]int{}
	var groups []dirGroup
	for _, f := range files {
		d := path.Dir(f.Path)
		i, ok := idx[d]
		if !ok {
			i = len(groups)
			idx[d] = i
			groups = append(groups, dirGroup{dir: strings.TrimSuffix(d, "/")})
		}
		groups[i].files = append(groups[i].files, f)
	}
	slices.SortFunc(groups, func(a, b dirGroup) int { return strings.Compare(a.dir, b.dir) })
	return groups
}

func longestRun(data []byte, c byte) int {
	best := 0
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], c)
		if j < 0 {
			break
		}
		i += j
		n := 0
		for i < len(data) && data[i] == c {
			n++
			i++
		}
		best = max(best, n)
	}
	return best
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// formatInt writes n with thousands separators: 1234567 -> "1,234,567".
func formatInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
