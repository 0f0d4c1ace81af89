// Package mcpsdk serves agentfiles tool sets through the official MCP Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// # Registering tools
//
// [Register] adds every [adapters.Tool] of a tool set to an *mcp.Server. Each call validates its
// arguments against the tool's input schema, runs the handler, and answers with both structured
// content (the result object) and a text rendering of it (the same JSON, or the result's own
// text when it is an [adapters.Texter], as the memory tool's is), so that clients that read only
// text still get everything. A handler error becomes an isError result whose text is
// the JSON object {"code": ..., "message": ...}: the model sees the code and what to do next,
// never internals.
//
// # Answer size
//
// An answer is thus sent twice, the text copy escaped again, so the handler marks each call's
// context with agentfiles.AnswerJSONAndText (agentfiles.WithAnswerEncoding): a Service's
// answer cap (fileio's grep cap) then counts both copies, and the tools/call response stays
// within it however many escapes the answer holds; an answer holds about half as much as over
// HTTP, and says it was cut and how to get the rest.
//
// # Identity
//
// Tools that are tenant-scoped (fileio, search) read an agentfiles.AuthContext from the context. Over
// streamable HTTP, wrap the handler with [HTTPHandler], which authenticates every request with an
// [adapters.Authenticator] and hands the identity to tool calls of that session. Over stdio there
// are no headers: set [Options.Auth] to the identity the process serves (for example from a
// token in its environment).
//
// # Logging
//
// [Register] logs one INFO line per tool call, arguments redacted ([adapters.LogArgs]). Give
// the SDK itself [QuietLogger] (mcp.ServerOptions.Logger, mcp.StreamableHTTPOptions.Logger):
// its several INFO lines per stateless request become DEBUG.
//
// # Stdio
//
// Serve stdio with [StdioTransport] rather than the SDK's mcp.StdioTransport: a line that is not
// a JSON-RPC message (malformed, nested too deeply, too long) is answered with a JSON-RPC error
// and the session goes on, where the SDK's transport would end it.
package mcpsdk

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure [Register]. The zero value is usable.
type Options struct {
	// Auth is the identity used for calls that carry none of their own (stdio, or HTTP without
	// [HTTPHandler]). Nil means such calls are anonymous; tenant-scoped tools then refuse them
	// with PERMISSION_DENIED.
	Auth *agentfiles.AuthContext
	// Logger receives one record per tool call (name, duration, outcome, redacted arguments):
	// INFO for a call that succeeds or fails with the caller's error, ERROR for an internal
	// failure. Nil discards.
	Logger *slog.Logger
}

// authExtraKey is where HTTPHandler stores the AuthContext in the SDK's per-request TokenInfo.
const authExtraKey = "agentfiles.auth"

// Register adds the tools to the server. It panics if a tool has no input schema (the SDK's
// rule); tools built with adapters.NewTool always have one.
func Register(s *mcp.Server, tools []adapters.Tool, opts Options) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	for _, t := range tools {
		s.AddTool(sdkTool(t), handler(t, opts.Auth, logger))
	}
}

func sdkTool(t adapters.Tool) *mcp.Tool {
	destructive := t.Annotations.Destructive
	openWorld := t.Annotations.OpenWorld
	st := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: t.InputSchema,
		Annotations: &mcp.ToolAnnotations{
			Title:           t.Title,
			ReadOnlyHint:    t.Annotations.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  t.Annotations.Idempotent,
			OpenWorldHint:   &openWorld,
		},
	}
	if t.OutputSchema != nil && t.OutputSchema.Type == "object" {
		st.OutputSchema = t.OutputSchema
	}
	return st
}

func handler(t adapters.Tool, fallback *agentfiles.AuthContext, logger *slog.Logger) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req != nil && req.Extra != nil {
			var cancel context.CancelFunc
			ctx, cancel = withRequestContext(ctx, req.Extra.Header)
			defer cancel()
		}
		if ac, ok := requestAuth(req); ok {
			ctx = agentfiles.WithAuth(ctx, ac)
		} else if fallback != nil {
			ctx = agentfiles.WithAuth(ctx, *fallback)
		}
		ctx = agentfiles.WithAnswerEncoding(ctx, agentfiles.AnswerJSONAndText)
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		start := time.Now()
		out, err := t.Call(ctx, args)
		if err != nil {
			te, internal := adapters.ErrorOf(err)
			level := slog.LevelInfo
			if internal {
				level = slog.LevelError
			}
			logger.LogAttrs(ctx, level, "tool call failed", slog.String("tool", t.Name),
				slog.Duration("took", time.Since(start)), slog.String("code", te.Code),
				slog.String("error", adapters.LogError(err)), slog.Any("args", adapters.LogArgs(t, args)))
			return errorResult(te), nil
		}
		logger.LogAttrs(ctx, slog.LevelInfo, "tool call", slog.String("tool", t.Name),
			slog.Duration("took", time.Since(start)), slog.Any("args", adapters.LogArgs(t, args)))
		return successResult(out)
	}
}

func requestAuth(req *mcp.CallToolRequest) (agentfiles.AuthContext, bool) {
	if req == nil || req.Extra == nil || req.Extra.TokenInfo == nil {
		return agentfiles.AuthContext{}, false
	}
	ac, ok := req.Extra.TokenInfo.Extra[authExtraKey].(agentfiles.AuthContext)
	return ac, ok
}

func successResult(out any) (*mcp.CallToolResult, error) {
	text, err := json.Marshal(out)
	if err != nil {
		return errorResult(adapters.ToolError{Code: agentfiles.CodeInternal.String(), Message: "the result could not be encoded"}), nil
	}
	content := string(text)
	if t, ok := out.(adapters.Texter); ok {
		content = t.ToolText() // a prose result: its text as is, the JSON as structured content
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: content}},
		StructuredContent: json.RawMessage(text),
	}, nil
}

func errorResult(te adapters.ToolError) *mcp.CallToolResult {
	text, _ := json.Marshal(te)
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: string(text)}},
	}
}

// QuietLogger returns a logger for the SDK itself (mcp.ServerOptions.Logger,
// mcp.StreamableHTTPOptions.Logger) that writes to l's handler with the SDK's INFO records
// lowered to DEBUG: the SDK logs several INFO lines for every stateless request ("server
// connecting", "session initialized", …), which would bury the one line per tool call that
// [Register] logs. Warnings and errors keep their level. Nil discards.
func QuietLogger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(quietHandler{l.Handler()})
}

// quietHandler lowers INFO records to DEBUG.
type quietHandler struct{ h slog.Handler }

func (q quietHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return q.h.Enabled(ctx, lowered(level))
}

func (q quietHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = lowered(r.Level)
	return q.h.Handle(ctx, r)
}

func (q quietHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietHandler{q.h.WithAttrs(attrs)}
}
func (q quietHandler) WithGroup(name string) slog.Handler { return quietHandler{q.h.WithGroup(name)} }

func lowered(l slog.Level) slog.Level {
	if l >= slog.LevelInfo && l < slog.LevelWarn {
		return slog.LevelDebug
	}
	return l
}

// authenticatedKey is the request-context key under which HTTPHandler passes the identity
// authn returned to the SDK's bearer-token check.
type authenticatedKey struct{}

// HTTPHandler serves the MCP streamable HTTP transport for the server returned by getServer,
// authenticating every request with authn, once per request (for example adapters.BearerAuth(nil)). Requests that
// fail authentication get 401 with a JSON body {"error": {"code", "message"}}; accepted ones carry
// their agentfiles.AuthContext to every tool call. The SDK binds a session to the tenant that opened
// it, so one caller cannot use another's session. opts may be nil.
func HTTPHandler(getServer func(*http.Request) *mcp.Server, authn adapters.Authenticator, opts *mcp.StreamableHTTPOptions) http.Handler {
	h := mcp.NewStreamableHTTPHandler(getServer, opts)
	if authn == nil {
		return h
	}
	// The outer handler authenticates; verify, which RequireBearerToken calls for the same
	// request, reads the identity from the request's context instead of authenticating again.
	verify := func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		ac, ok := r.Context().Value(authenticatedKey{}).(agentfiles.AuthContext)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: ac.APIKeyHash, Extra: map[string]any{authExtraKey: ac}}, nil
	}
	protected := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// RequireBearerToken answers refusals in plain text; answer them in our error shape first.
		ac, err := authn(r)
		if err != nil {
			te, _ := adapters.ErrorOf(err)
			if te.Code == agentfiles.CodeInternal.String() {
				te = adapters.ToolError{Code: agentfiles.CodeUnauthenticated.String(), Message: "missing or invalid credentials", Kind: agentfiles.KindUnauthenticated}
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("WWW-Authenticate", "Bearer")
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": te})
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), authenticatedKey{}, ac))
		protected.ServeHTTP(w, r)
	})
}
