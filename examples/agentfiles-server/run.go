package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/examples/internal/mcpcmd"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdio are the process's standard streams (replaced in tests).
type stdio struct {
	in  io.Reader
	out io.Writer
	err io.Writer
	// ready, when set, is called with the base URL once the HTTP server accepts connections.
	ready func(baseURL string)
}

// shutdownTimeout bounds how long a stop waits for in-flight requests and indexing.
const shutdownTimeout = 15 * time.Second

// run is the whole program: parse flags, build the tools, serve until ctx ends, then drain.
func run(ctx context.Context, args []string, std stdio) error {
	c, err := parseFlags(args, std.err)
	if err != nil {
		return err
	}
	if c.version {
		fmt.Fprintln(std.out, commandName, mcpcmd.Version())
		return nil
	}
	level, _ := parseLogLevel(c.logLevel)
	logger := slog.New(slog.NewTextHandler(std.err, &slog.HandlerOptions{Level: level}))

	a, err := newApp(ctx, c, logger)
	if err != nil {
		return err
	}
	a.start(ctx)
	if c.stdio {
		err = serveStdio(ctx, c, a, std, logger)
	} else {
		err = serveHTTP(ctx, c, a, std, logger)
	}
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if e := a.stop(stopCtx); e != nil && err == nil {
		err = e
	}
	return err
}

// newMCPServer registers the tool set on an MCP server. fallback is the identity of calls that
// carry none (stdio); nil leaves them anonymous.
func newMCPServer(a *app, fallback *agentfiles.AuthContext, logger *slog.Logger) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: commandName, Title: "agentfiles all-in-one server", Version: mcpcmd.Version()}, &mcp.ServerOptions{
		Instructions: "File tools for agents. file_* tools work on a project (a named, isolated file tree of your tenant); " +
			"file_search finds text in it. Documentation (docs_*) and catalog tools read files the server was started with; " +
			"consultation asks a language model about local files.",
		// The SDK logs several INFO lines per stateless request; they go to DEBUG, leaving one
		// INFO line per tool call (mcpsdk.Register's).
		Logger: mcpsdk.QuietLogger(logger),
	})
	mcpsdk.Register(s, a.tools, mcpsdk.Options{Auth: fallback, Logger: logger})
	return s
}

// serveStdio serves MCP on stdin/stdout as the tenant of the -dev-token. Nothing but MCP goes
// to stdout; the banner and logs go to stderr.
func serveStdio(ctx context.Context, c config, a *app, std stdio, logger *slog.Logger) error {
	ac := agentfiles.NewAuthContext(c.devToken, "stdio")
	s := newMCPServer(a, &ac, logger)
	fmt.Fprintf(std.err, "%s: MCP on stdio, %d tools; tenant = SHA-256 of the -dev-token.\n", commandName, len(a.tools))
	for _, s := range a.setup {
		fmt.Fprintf(std.err, "  %s\n", s)
	}
	// mcpsdk's stdio transport answers a malformed line with a JSON-RPC error and reads on; the
	// SDK's own ends the session (and the server) on the first one.
	err := s.Run(ctx, mcpsdk.StdioTransport(std.in, std.out, mcpsdk.StdioOptions{}))
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return fmt.Errorf("MCP on stdio: %w", err)
}

// serveHTTP serves the console, the JSON API and MCP until ctx ends, then shuts down: the
// listener closes at once and in-flight requests get shutdownTimeout to finish.
func serveHTTP(ctx context.Context, c config, a *app, std stdio, logger *slog.Logger) error {
	auth, err := newAuth(c)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("%s: %w", flagRef("addr"), err)
	}
	// Every timeout is set: a client that trickles its headers or body, or parks idle
	// connections, is cut off instead of holding a connection (and a goroutine) for ever. MCP is
	// served stateless (no long-lived GET streams), so a write timeout only bounds a call.
	srv := &http.Server{
		Handler:           routes(c, a, newMCPServer(a, nil, logger), auth.authn, logger),
		ReadHeaderTimeout: c.readHeaderTimeout,
		ReadTimeout:       c.readTimeout,
		WriteTimeout:      c.writeTimeout,
		IdleTimeout:       c.idleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	base := "http://" + ln.Addr().String()
	printBanner(std.out, c, a, auth, base)
	if std.ready != nil {
		std.ready(base)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving HTTP: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down: draining in-flight requests", "timeout", shutdownTimeout)
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("shutting down HTTP: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// printBanner prints the URLs and a one-line hint. A token appears only when it is the
// well-known dev token.
func printBanner(w io.Writer, c config, a *app, auth authSetup, base string) {
	console := base + "/"
	if auth.consoleToken != "" {
		console += "#token=" + auth.consoleToken
	}
	fmt.Fprintf(w, "%s on %s — %d tools\n", commandName, base, len(a.tools))
	fmt.Fprintf(w, "  console   %s\n", console)
	fmt.Fprintf(w, "  MCP       %s/mcp  (streamable HTTP)\n", base)
	fmt.Fprintf(w, "  JSON API  %s/tools\n", base)
	fmt.Fprintf(w, "  auth      %s\n", auth.description)
	for _, s := range a.setup {
		fmt.Fprintf(w, "  %s\n", s)
	}
	hint := "open the console URL in a browser"
	if auth.consoleToken != "" {
		hint += fmt.Sprintf(`, or: curl -H "Authorization: Bearer %s" %s/tools`, auth.consoleToken, base)
	}
	fmt.Fprintf(w, "Hint: %s. Ctrl-C stops.\n", hint)
}

// parseLogLevel maps -log-level to a slog level; "off" discards everything.
func parseLogLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info", "":
		return slog.LevelInfo, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	case "off":
		return slog.LevelError + 100, nil
	}
	return 0, fmt.Errorf("%s %q: use debug, info, warn, error or off", flagRef("log-level"), s)
}
