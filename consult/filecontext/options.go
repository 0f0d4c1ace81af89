package filecontext

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/consult"
)

// Defaults of [Options].
const (
	DefaultBudgetTokens         consult.Tokens = 100_000
	DefaultMaxFileBudgetPercent int            = 50
	DefaultMaxReadPaths         int            = 100
	MaxReadPathsLimit           int            = 1000 // hard maximum of Options.MaxReadPaths
	DefaultRefillPercent        int            = 50   // see Options.RefillPercent and BENCHMARKS.md
)

// Options configure a [Context] (see [New]) and the pure functions behind it. The zero value is
// usable: every zero field takes its default.
type Options struct {
	// BudgetTokens caps the file content in the conversation: base files in the system prompt
	// plus every content entry of every read_files result. Default 100,000.
	BudgetTokens consult.Tokens

	// Per-file gates. A file is rejected with status too_large when its content has more than
	// MaxFileTokens tokens (0: no absolute limit) or more than MaxFileBudgetPercent percent of
	// BudgetTokens (0: default 50; 100 turns the share gate off). The gates apply to files read
	// with read_files; base files are only held to the budget.
	MaxFileTokens        consult.Tokens
	MaxFileBudgetPercent int

	// MaxFileBytes stops reading a file early: a larger file is too_large without being read
	// whole. Default: 16 bytes per token of the per-file token limit.
	MaxFileBytes int64

	// MaxReadPaths caps the paths one read_files call reads; the rest are reported as skipped.
	// Default 100, clamped to 1000.
	MaxReadPaths int

	// RefillPercent is how full a reset leaves the context. When a read would exceed the budget,
	// every earlier read_files result loses its content and the new result re-sends files: the
	// requested ones (up to the full budget), then earlier ones from the most recently requested,
	// while the file content in messages stays within RefillPercent percent of the room the base
	// files leave. The rest is headroom that the following turns fill by appending, so that the
	// cached prefix survives them; at 100 a reset refills to the brim and nearly every later
	// turn resets again. Lower values mean fewer resets and fewer tokens re-sent per reset, but
	// fewer earlier files kept (the model reads them again when it needs them). Values from 1 to
	// 100; 0 takes DefaultRefillPercent, chosen by measurement (BENCHMARKS.md).
	RefillPercent int

	// Prices, when set, make [CacheStats] estimate the cost of the requests' input tokens.
	Prices *CachePrices

	// Instructions open the system prompt, before the base files.
	Instructions string

	// Counter counts tokens. Default [consult.EstimateCounter], an estimate.
	Counter consult.TokenCounter

	// Source reads files. Default [OSFileSource].
	Source FileSource

	// Logger receives debug records (paths, token counts, resets; never contents). Nil: silent.
	Logger *slog.Logger
}

// withDefaults returns the options with every zero field set to its default.
func (o Options) withDefaults() Options {
	if o.BudgetTokens <= 0 {
		o.BudgetTokens = DefaultBudgetTokens
	}
	if o.MaxFileBudgetPercent <= 0 {
		o.MaxFileBudgetPercent = DefaultMaxFileBudgetPercent
	}
	if o.MaxFileBudgetPercent > 100 {
		o.MaxFileBudgetPercent = 100
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = int64(o.perFileTokenLimit()) * 16
	}
	if o.MaxReadPaths <= 0 {
		o.MaxReadPaths = DefaultMaxReadPaths
	}
	if o.MaxReadPaths > MaxReadPathsLimit {
		o.MaxReadPaths = MaxReadPathsLimit
	}
	if o.RefillPercent <= 0 {
		o.RefillPercent = DefaultRefillPercent
	}
	if o.RefillPercent > 100 {
		o.RefillPercent = 100
	}
	if o.Counter == nil {
		o.Counter = consult.EstimateCounter{}
	}
	if o.Source == nil {
		o.Source = OSFileSource{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// perFileTokenLimit is the tighter of the two per-file gates.
func (o Options) perFileTokenLimit() consult.Tokens {
	limit := o.BudgetTokens * consult.Tokens(o.MaxFileBudgetPercent) / 100
	if o.MaxFileTokens > 0 && o.MaxFileTokens < limit {
		limit = o.MaxFileTokens
	}
	return limit
}

// FileSource reads the files of a [Context]. Implementations must be safe for concurrent use.
//
// ReadFile returns the content of the file at path, reading at most maxBytes+1 bytes so that the
// caller can tell a file is larger than maxBytes. Errors should wrap fs.ErrNotExist or
// fs.ErrPermission where they apply, or be an *agentfiles.Error with code IS_DIRECTORY,
// consult.CodeNotRegular or consult.CodeFileTooLarge; anything else is reported as a read error.
type FileSource interface {
	ReadFile(ctx context.Context, path string, maxBytes int64) ([]byte, error)
}

// OSFileSource reads files from the operating system. It is safe for concurrent use.
type OSFileSource struct{}

// ReadFile implements [FileSource].
func (OSFileSource) ReadFile(ctx context.Context, path string, maxBytes int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, path, maxBytes)
}

// FSFileSource reads files from an fs.FS, such as fstest.MapFS or os.DirFS. Paths are the
// context's paths with any leading "/" removed ("/docs/a.md" opens "docs/a.md"). It is safe for
// concurrent use when FS is.
type FSFileSource struct {
	FS fs.FS
}

// ReadFile implements [FileSource].
func (s FSFileSource) ReadFile(ctx context.Context, path string, maxBytes int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := strings.TrimPrefix(path, "/")
	if name == "" {
		name = "."
	}
	f, err := s.FS.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, path, maxBytes)
}

// readLimited checks that f is a regular file of at most maxBytes and reads it.
func readLimited(f fs.File, path string, maxBytes int64) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch {
	case info.IsDir():
		return nil, agentfiles.NewError(agentfiles.CodeIsDirectory, "this path is a directory; read the files inside it", path)
	case !info.Mode().IsRegular():
		return nil, agentfiles.NewError(consult.CodeNotRegular, "not a regular file (device, socket or pipe)", path)
	case info.Size() > maxBytes:
		return nil, agentfiles.NewError(consult.CodeFileTooLarge,
			fmt.Sprintf("the file has %d bytes; at most %d bytes are read", info.Size(), maxBytes), path)
	}
	return io.ReadAll(io.LimitReader(f, maxBytes+1))
}

// classifyReadError maps an error of a FileSource to a status and a message for the model.
func classifyReadError(err error) (FileStatus, string) {
	var ce *agentfiles.Error
	switch {
	case errors.As(err, &ce):
		for status, code := range fileStatusCodes {
			if code == ce.Code && status != FileSkipped && status != FileInvalidPath {
				return status, ce.Message
			}
		}
		if ce.Code == agentfiles.CodeInvalidArgument {
			return FileInvalidPath, ce.Message
		}
		return FileReadError, "the file could not be read"
	case errors.Is(err, fs.ErrNotExist):
		return FileNotFound, "no such file; check the path (it may have been deleted)"
	case errors.Is(err, fs.ErrPermission):
		return FilePermissionDenied, "the file cannot be read: permission denied"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return FileReadError, "the read was cancelled; try again"
	}
	return FileReadError, "the file could not be read"
}
