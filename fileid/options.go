package fileid

import (
	"fmt"
	"log/slog"
	"path"
	"runtime"
	"slices"
	"strings"

	"github.com/agentfiles/agentfiles"
)

// Defaults and hard limits. Requests above a hard maximum are clamped, and the result says so.
const (
	DefaultMaxTOCDepth = 3        // TOC levels shown when the caller does not ask for a depth
	MaxTOCDepth        = 6        // Markdown has six heading levels
	DefaultTOCEntries  = 300      // TOC entries returned by default
	MaxTOCEntries      = 2000     // hard maximum of TOC entries per call
	DefaultListFiles   = 200      // files per listing page by default
	MaxListFiles       = 2000     // hard maximum of files per listing page
	DefaultReadBytes   = 64 << 10 // section bytes returned per read by default
	MaxReadBytes       = 1 << 20  // hard maximum of section bytes per read
	MaxSectionsPerRead = 50       // section IDs honoured per read; the rest are listed as omitted
	DefaultMatches     = 50       // search matches returned by default
	MaxMatches         = 500      // hard maximum of search matches per call
	MaxQueryBytes      = 1024     // longest accepted search query
	MaxLineBytes       = 240      // a matching line longer than this is cut around the match

	DefaultMaxFileBytes = 8 << 20 // larger files are skipped at build (see Registry.Skipped)
)

// DefaultInclude are the file-name patterns scanned when Options.Include is empty.
var DefaultInclude = []string{"*.md", "*.mdx", "*.markdown"}

// Options configure [New]; they are passed by value, and the zero value gives the defaults.
type Options struct {
	// Include lists path.Match patterns for the files that count, matched case-insensitively
	// against the file name, or against the slash-separated path relative to the root when
	// the pattern contains a "/". Empty means DefaultInclude.
	Include []string
	// MaxTOCDepth is the default depth of TableOfContents (DefaultMaxTOCDepth when 0).
	MaxTOCDepth int
	// MaxFileBytes skips larger files (DefaultMaxFileBytes when 0).
	MaxFileBytes int64
	// Concurrency bounds the goroutines that read and search files (GOMAXPROCS when 0).
	Concurrency int
	// Logger receives build diagnostics (skipped files, front-matter errors). Nil is silent.
	// File contents are never logged.
	Logger *slog.Logger
}

// Options returns the options the registry was built with, defaults filled in: what tool
// descriptions state (the default TOC depth, say).
func (r *Registry) Options() Options {
	o := r.opts
	o.Include = slices.Clone(o.Include)
	return o
}

// resolve returns a copy with defaults filled in, or an INVALID_ARGUMENT error for a bad pattern.
// Resolving resolved options changes nothing.
func (o Options) resolve() (Options, error) {
	r := o
	if len(r.Include) == 0 {
		r.Include = DefaultInclude
	}
	lowered := make([]string, len(r.Include))
	for i, p := range r.Include {
		lp := strings.ToLower(p)
		if _, err := path.Match(lp, ""); err != nil || p == "" {
			return Options{}, agentfiles.WrapError(agentfiles.CodeInvalidArgument,
				"include pattern is not a valid path.Match pattern; use forms like *.md or guides/*.md", p, err)
		}
		lowered[i] = lp
	}
	r.Include = lowered
	if r.MaxTOCDepth <= 0 {
		r.MaxTOCDepth = DefaultMaxTOCDepth
	}
	r.MaxTOCDepth = min(r.MaxTOCDepth, MaxTOCDepth)
	if r.MaxFileBytes <= 0 {
		r.MaxFileBytes = DefaultMaxFileBytes
	}
	if r.Concurrency <= 0 {
		r.Concurrency = runtime.GOMAXPROCS(0)
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	return r, nil
}

// included reports whether the file at relative path rel counts.
func (o Options) included(rel string) bool {
	lower := strings.ToLower(rel)
	base := path.Base(lower)
	for _, p := range o.Include {
		name := base
		if strings.Contains(p, "/") {
			name = lower
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// clampLimit returns the limit a request asked for, def when it asked for 0 or less, and hard
// when it asked for more than hard; clamping appends a notice naming the request's argument.
func clampLimit(arg string, requested, def, hard int, notices *[]string) int {
	n := requested
	if n <= 0 {
		n = def
	}
	if n > hard {
		*notices = append(*notices, fmt.Sprintf("%s %d was clamped to %d", arg, n, hard))
		n = hard
	}
	return n
}
