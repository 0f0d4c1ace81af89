// Package mcpcmd is what the example MCP server commands (agentfiles-docs-server,
// agentfiles-guide-server) share: how they run, their common flags -http, -v and -version, and
// serving a tool set over MCP on stdio or streamable HTTP. [Version] is every example's -version. It uses only the public API of github.com/agentfiles/agentfiles and the MCP
// Go SDK.
package mcpcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrVersion is returned by [Command.Parse] after -version printed the version: the command
// should exit with status 0.
var ErrVersion = errors.New("version printed")

// Version is the version of the running binary: the module version when it was installed with
// go install module@version, else the VCS revision it was built from (with "+dirty" for
// uncommitted changes), else "devel".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	return "devel-" + rev[:min(12, len(rev))] + dirty
}

// Main runs the command name: run with a context that ends on SIGINT or SIGTERM, the
// [Command] (writing to stderr) and the process's arguments. When run fails it prints
// "name: error" and exits with status 1.
func Main(name string, run func(ctx context.Context, cmd *Command, args []string) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, New(name, os.Stderr), os.Args[1:])
	stop()
	if errors.Is(err, ErrVersion) || errors.Is(err, flag.ErrHelp) {
		return
	}
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
	// Name is the command's name (the binary's, e.g. "agentfiles-docs-server"): its flag
	// set's, the prefix of its messages, and the MCP server's.
	Name string
	// Flags holds the command's flags; New defines -http, -v and -version, the command adds
	// its own and calls [Command.Parse].
	Flags *flag.FlagSet

	stderr   io.Writer
	httpAddr *string
	verbose  *bool
	version  *bool
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
		verbose:  fs.Bool("v", false, "log to stderr (one line per tool call, never file contents)"),
		version:  fs.Bool("version", false, "print the version and exit"),
	}
}

// Parse parses args. After -version it prints "name version" on stderr and returns
// [ErrVersion].
func (c *Command) Parse(args []string) error {
	if err := c.Flags.Parse(args); err != nil {
		return err
	}
	if *c.version {
		fmt.Fprintln(c.stderr, c.Name, Version())
		return ErrVersion
	}
	if c.Flags.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; all options are flags (see -h)", c.Flags.Arg(0))
	}
	return nil
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
	server := mcp.NewServer(&mcp.Implementation{Name: c.Name, Version: Version()}, &mcp.ServerOptions{Logger: mcpsdk.QuietLogger(logger)})
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
