// Package mcpcmd is what the example MCP server commands (docs-server, guide-server) share: how
// they run, their common flags -http and -v, and serving a tool set over MCP on stdio or
// streamable HTTP. It uses only the public API of github.com/agentfiles/agentfiles and the MCP
// Go SDK.
package mcpcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Main runs the command name: run with a context that ends on SIGINT or SIGTERM, the
// [Command] (writing to stderr) and the process's arguments. When run fails it prints
// "name: error" and exits with status 1.
func Main(name string, run func(ctx context.Context, cmd *Command, args []string) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, New(name, os.Stderr), os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// ListFlag is a repeatable string flag.
type ListFlag []string

func (l *ListFlag) String() string     { return strings.Join(*l, ",") }
func (l *ListFlag) Set(v string) error { *l = append(*l, v); return nil }

// Command is one run of an MCP server command.
type Command struct {
	// Name is the command's name: its flag set's, the prefix of its messages, and (after
	// "agentfiles-") the MCP server's.
	Name string
	// Flags holds the command's flags; New defines -http and -v, the command adds its own.
	Flags *flag.FlagSet

	stderr   io.Writer
	httpAddr *string
	verbose  *bool
}

// New returns the command name, whose flag errors and usage go to stderr.
func New(name string, stderr io.Writer) *Command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return &Command{
		Name:     name,
		Flags:    fs,
		stderr:   stderr,
		httpAddr: fs.String("http", "", "serve MCP streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio"),
		verbose:  fs.Bool("v", false, "log to stderr"),
	}
}

// Logger logs to stderr from level up with -v, and discards without it.
func (c *Command) Logger(level slog.Level) *slog.Logger {
	if !*c.verbose {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: level}))
}

// Serve serves tools with an MCP server until ctx is done: over stdin/stdout without -http,
// else with the streamable HTTP transport at /mcp on the -http address. Over HTTP it prints
// "name: serving MCP on URL" on stderr once it listens, so that a caller that passed port 0 can
// find it.
func (c *Command) Serve(ctx context.Context, tools []adapters.Tool, logger *slog.Logger) error {
	server := mcp.NewServer(&mcp.Implementation{Name: "agentfiles-" + c.Name, Version: "0.1.0"}, nil)
	mcpsdk.Register(server, tools, mcpsdk.Options{Logger: logger})
	if *c.httpAddr == "" {
		// A malformed line gets a JSON-RPC parse error and the session goes on (the SDK's own
		// stdio transport would end it).
		return server.Run(ctx, mcpsdk.StdioTransport(os.Stdin, os.Stdout, mcpsdk.StdioOptions{}))
	}
	ln, err := net.Listen("tcp", *c.httpAddr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	srv := newHTTPServer(mux)
	fmt.Fprintf(c.stderr, "%s: serving MCP on http://%s/mcp\n", c.Name, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shutdown)
	}
}

// newHTTPServer is the HTTP server of -http, with every timeout but the write timeout set: a
// client that trickles its request or parks idle connections is cut off. The streamable HTTP
// transport keeps GET streams open for server messages, which a write timeout would cut.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
	}
}
