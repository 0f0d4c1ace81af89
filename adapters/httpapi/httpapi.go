// Package httpapi serves agentfiles tool sets as a plain JSON API over net/http.
//
// # Endpoints
//
//	GET  /tools          the tool list: name, title, description, inputSchema, outputSchema, annotations
//	POST /tools/{name}   call a tool; the body is the arguments object, the answer the result object
//
// and, with [NewArchiveHandler] mounted at /archive/, a project as an archive:
//
//	PUT  /archive/{project}?path=&mode=          import a tar, tar.gz or zip body; answers JSON
//	GET  /archive/{project}?path=&glob=&format=  export as tar (default), tar.gz or zip
//
// A successful call answers 200 with the result as JSON. A failed one answers the status of the
// error's code (see adapters.HTTPStatus: 400 for bad arguments, 404 for unknown names, 409 for
// conflicts, 413 for oversized bodies, 429 for rate limits, 503 for a busy project, ...) with the
// body {"error": {"code": "...", "message": "..."}}. Internal failures answer 500 with a generic
// message; the cause goes to the log only.
//
// # Authentication
//
// [Options.Authenticator] runs on every request and its agentfiles.AuthContext is put into the
// request context for the tool; a refusal answers 401 UNAUTHENTICATED. Without an Authenticator
// requests are anonymous, which suits read-only tool sets such as fileid; tenant-scoped tools
// refuse anonymous calls with PERMISSION_DENIED.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/internal/keyedslots"
	"github.com/google/jsonschema-go/jsonschema"
)

// DefaultMaxBodyBytes is the request body limit when Options.MaxBodyBytes is zero: a little over
// fileio's default 2 MiB payload limit, so JSON escaping of a maximal write still fits.
const DefaultMaxBodyBytes = 3 << 20

// Options configure [NewHandler]. The zero value is usable.
type Options struct {
	// Authenticator produces the caller's identity; nil means anonymous requests.
	Authenticator adapters.Authenticator
	// MaxBodyBytes caps the request body (DefaultMaxBodyBytes when zero).
	MaxBodyBytes int64
	// Logger receives one record per call; nil discards.
	Logger *slog.Logger
	// MaxConcurrentAnswers is how many answers of one caller (a tenant's key hash; all
	// anonymous requests are one caller) are encoded and written at once; further ones wait
	// for one of them to finish, or for their own request to end. A tool's own work is bounded
	// by its core (fileio's per-tenant call slots, for example); this bounds the CPU and
	// garbage that encoding one caller's large answers in parallel (a read of 2 MiB, a long
	// grep) takes from other callers. Zero: no limit.
	MaxConcurrentAnswers int
}

// ToolInfo is one entry of GET /tools.
type ToolInfo struct {
	Name         string             `json:"name"`
	Title        string             `json:"title,omitempty"`
	Description  string             `json:"description"`
	InputSchema  *jsonschema.Schema `json:"inputSchema"`
	OutputSchema *jsonschema.Schema `json:"outputSchema,omitempty"`
	Annotations  annotations        `json:"annotations"`
}

type annotations struct {
	ReadOnly    bool `json:"readOnlyHint"`
	Destructive bool `json:"destructiveHint"`
	Idempotent  bool `json:"idempotentHint"`
	OpenWorld   bool `json:"openWorldHint"`
}

// Handler serves a tool set. It is safe for concurrent use.
type Handler struct {
	tools   map[string]adapters.Tool
	list    []ToolInfo
	opts    Options
	logger  *slog.Logger
	maxBody int64
	slots   *keyedslots.Slots // answers written at once per caller; nil: no limit
}

// NewHandler returns the handler for the tools. Mount it at the server root, or under a prefix
// with http.StripPrefix.
func NewHandler(tools []adapters.Tool, opts Options) *Handler {
	h := &Handler{tools: make(map[string]adapters.Tool, len(tools)), opts: opts}
	h.logger = h.opts.Logger
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	h.maxBody = h.opts.MaxBodyBytes
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBodyBytes
	}
	if opts.MaxConcurrentAnswers > 0 {
		h.slots = keyedslots.New(opts.MaxConcurrentAnswers)
	}
	for _, t := range tools {
		h.tools[t.Name] = t
		h.list = append(h.list, ToolInfo{
			Name: t.Name, Title: t.Title, Description: t.Description,
			InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
			Annotations: annotations{
				ReadOnly: t.Annotations.ReadOnly, Destructive: t.Annotations.Destructive,
				Idempotent: t.Annotations.Idempotent, OpenWorld: t.Annotations.OpenWorld,
			},
		})
	}
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/tools":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.fail(w, r, agentfiles.NewError(adapters.CodeMethodNotAllowed, "use GET /tools to list tools", r.Method), "")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"tools": h.list})
	case strings.HasPrefix(path, "/tools/"):
		h.call(w, r, strings.TrimPrefix(path, "/tools/"))
	default:
		h.fail(w, r, agentfiles.NewError(adapters.CodeUnknownTool, "no such endpoint; use GET /tools and POST /tools/{name}", r.URL.Path), "")
	}
}

func (h *Handler) call(w http.ResponseWriter, r *http.Request, name string) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.fail(w, r, agentfiles.NewError(adapters.CodeMethodNotAllowed, "call a tool with POST and a JSON arguments object", r.Method), name)
		return
	}
	tool, ok := h.tools[name]
	if !ok {
		h.fail(w, r, agentfiles.NewError(adapters.CodeUnknownTool, "no tool with that name; GET /tools lists them", name), name)
		return
	}
	ctx, err := authenticate(r, h.opts.Authenticator)
	if err != nil {
		w.Header().Set("WWW-Authenticate", "Bearer")
		h.fail(w, r, err, name)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			h.fail(w, r, agentfiles.NewError(agentfiles.CodePayloadTooLarge,
				"the request body is larger than "+formatBytes(h.maxBody)+"; send less content per call (for example several appends)", name), name)
			return
		}
		h.fail(w, r, agentfiles.NewError(agentfiles.CodeInvalidArgument, "could not read the request body", name), name)
		return
	}
	start := time.Now()
	out, err := tool.Call(ctx, body)
	if err != nil {
		h.fail(w, r.WithContext(ctx), err, name, slog.Any("args", adapters.LogArgs(tool, body)), slog.Duration("took", time.Since(start)))
		return
	}
	h.logger.LogAttrs(ctx, slog.LevelInfo, "tool call", slog.String("tool", name),
		slog.Duration("took", time.Since(start)), slog.Any("args", adapters.LogArgs(tool, body)))
	if h.slots != nil {
		ac, _ := agentfiles.AuthFromContext(ctx)
		release, err := h.slots.Acquire(ctx, ac.TenantID())
		if err != nil {
			return // the client left while its answer waited: nobody reads it
		}
		defer release()
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error, tool string, attrs ...slog.Attr) {
	failWith(h.logger, w, r, err, tool, attrs...)
}

// failWith logs a failed request and answers its error as JSON with the status of its code.
func failWith(logger *slog.Logger, w http.ResponseWriter, r *http.Request, err error, tool string, attrs ...slog.Attr) {
	te, internal := adapters.ErrorOf(err)
	level := slog.LevelInfo
	if internal {
		level = slog.LevelError
	}
	attrs = append(attrs, slog.String("tool", tool), slog.String("code", te.Code), slog.String("error", adapters.LogError(err)))
	logger.LogAttrs(r.Context(), level, "tool call failed", attrs...)
	writeJSON(w, adapters.HTTPStatus(te.Kind), map[string]any{"error": te})
}

// authenticate returns the request's context with the caller's identity from authn (the
// context unchanged when authn is nil), or the UNAUTHENTICATED refusal.
func authenticate(r *http.Request, authn adapters.Authenticator) (context.Context, error) {
	ctx := r.Context()
	if authn == nil {
		return ctx, nil
	}
	ac, err := authn(r)
	if err != nil {
		if !errors.Is(err, agentfiles.ErrUnauthenticated) {
			// An authenticator that failed without saying why is still a refusal, not a 500.
			refusal := agentfiles.NewError(agentfiles.CodeUnauthenticated, "missing or invalid credentials; send \"Authorization: Bearer <key>\"", "")
			refusal.Err = err
			err = refusal
		}
		return nil, err
	}
	return agentfiles.WithAuth(ctx, ac), nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	default:
		return strconv.FormatInt(n, 10) + " bytes"
	}
}
