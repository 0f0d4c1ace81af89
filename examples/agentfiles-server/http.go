package main

import (
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/httpapi"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// routes is everything the HTTP mode serves:
//
//	/          the agentfiles console (GET)
//	/tools     the HTTP JSON API: GET /tools, POST /tools/{name}
//	/mcp       MCP over streamable HTTP
//	/archive/  a project as an archive: PUT imports a tar, tar.gz or zip body, GET exports one
//	/healthz   each backend's status: 200 {"status":"ok",...} when all are up, else 503 (health.go)
func routes(c config, a *app, mcpServer *mcp.Server, authn adapters.Authenticator, logger *slog.Logger) http.Handler {
	api := httpapi.NewHandler(a.tools, httpapi.Options{
		Authenticator: authn,
		MaxBodyBytes:  c.maxBodyBytes,
		Logger:        logger,
		// A tenant's large answers are encoded as many at once as it runs calls.
		MaxConcurrentAnswers: a.files.Config().ConcurrentCalls(),
	})
	// Stateless MCP: every POST is complete in itself and authenticated on its own, so several
	// server processes can share a database behind a load balancer, and shutdown drains cleanly
	// (there are no long-lived GET streams).
	// -max-body-bytes bounds /mcp as it bounds /tools; the guard also bounds JSON-RPC batches,
	// draws every message from the caller's rate limit (by token, or by address without one),
	// and answers every refusal as JSON.
	maxBody := c.maxBodyBytes
	if maxBody == 0 {
		maxBody = httpapi.DefaultMaxBodyBytes
	}
	mcpOpts := &mcp.StreamableHTTPOptions{Stateless: true, Logger: mcpsdk.QuietLogger(logger),
		MaxRequestBodyBytes: maxBody, PropagateRequestCancellation: true}
	getServer := func(*http.Request) *mcp.Server { return mcpServer }
	var mcpHandler http.Handler = mcpsdk.HTTPHandler(getServer, authn, mcpOpts)
	if c.mcpAnonymous {
		// Without credentials a request is served anonymously: tools that need no tenant
		// (documentation, catalog) work, and the file tools answer PERMISSION_DENIED.
		authenticated, anonymous := mcpHandler, mcp.NewStreamableHTTPHandler(getServer, mcpOpts)
		mcpHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if hasCredentials(r) {
				authenticated.ServeHTTP(w, r)
				return
			}
			anonymous.ServeHTTP(w, r)
		})
	}

	mcpHandler = mcpsdk.GuardHTTP(mcpHandler, mcpsdk.HTTPLimits{MaxBodyBytes: maxBody, Caller: mcpCaller(authn),
		MaxConcurrent: a.files.Config().ConcurrentCalls(), Allow: rateLimitMCP(a.files.RateLimiter())})

	mux := http.NewServeMux()
	mux.Handle("/tools", api)
	mux.Handle("/tools/", api)
	mux.Handle("/mcp", mcpHandler)
	mux.Handle("/archive/", httpapi.NewArchiveHandler(a.files, httpapi.ArchiveOptions{Authenticator: authn, Logger: logger}))
	mux.Handle("/healthz", healthHandler(a.backends, logger))
	mux.Handle("/", consoleHandler())

	var h http.Handler = mux
	if host, _, err := net.SplitHostPort(c.addr); err == nil && isLoopbackHost(host) {
		h = loopbackHostOnly(h)
	}
	return h
}

// loopbackHostOnly refuses requests whose Host header is not a loopback name. A server on
// loopback with a well-known token is otherwise reachable from any web page through DNS
// rebinding (evil.example resolving to 127.0.0.1).
func loopbackHostOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.Trim(host, "[]")
		if !isLoopbackHost(host) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": adapters.ToolError{
				Code:    "PERMISSION_DENIED",
				Message: "this server listens on loopback and answers only requests for localhost, 127.0.0.1 or [::1]; listen on another address (with tokens) to serve other host names",
			}})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// mcpCaller names the caller of an /mcp request: its tenant when it authenticates, else its
// client address, so requests without a token (-mcp-anonymous) have limits too.
func mcpCaller(authn adapters.Authenticator) func(*http.Request) string {
	return func(r *http.Request) string {
		if authn != nil && hasCredentials(r) {
			if ac, err := authn(r); err == nil {
				return ac.TenantID()
			}
		}
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		return "address:" + host
	}
}

// rateLimitMCP draws each JSON-RPC message of an /mcp request from its caller's token bucket.
// A nil limiter allows everything.
func rateLimitMCP(limiter *fileio.RateLimiter) func(string, int) error {
	if limiter == nil {
		return nil
	}
	return func(caller string, messages int) error {
		for range messages {
			if err := limiter.Allow(caller); err != nil {
				return err
			}
		}
		return nil
	}
}
