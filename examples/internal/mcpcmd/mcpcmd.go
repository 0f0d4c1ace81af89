// Package mcpcmd is what the example MCP server commands (agentfiles-docs-server,
// agentfiles-guide-server) share: how they run, their common flags -addr, -stdio, -log-level and
// -version (which mean what they mean for agentfiles-server), their -h, and serving a tool set
// over MCP on stdio or streamable HTTP. [Version] is every example's -version and
// [ParseLogLevel] every example's -log-level. It uses only the public API of
// github.com/agentfiles/agentfiles and the MCP Go SDK.
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

// ParseLogLevel parses a -log-level value: debug, info, warn, error or off.
func ParseLogLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	case "off":
		return LevelOff, nil
	}
	return 0, fmt.Errorf("-log-level %q: use debug, info, warn, error or off", s)
}

// LevelOff is the -log-level "off": above every level a command logs at.
const LevelOff = slog.LevelError + 100

// Main runs the command name, which about describes in a sentence (the first line of its -h):
// run with a context that ends on SIGINT or SIGTERM, the [Command] (writing to stderr) and the
// process's arguments. When run fails it prints "name: error" and exits with status 1.
func Main(name, about string, run func(ctx context.Context, cmd *Command, args []string) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	cmd := New(name, os.Stderr)
	cmd.About = about
	err := run(ctx, cmd, os.Args[1:])
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
	// About says what the command is, in a sentence; -h prints it first.
	About string
	// Flags holds the command's flags; New defines -addr, -stdio, -log-level and -version, the
	// command adds its own and calls [Command.Parse].
	Flags *flag.FlagSet
	// Stdout receives -version's line (os.Stdout unless a test replaces it).
	Stdout io.Writer

	stderr   io.Writer
	addr     *string
	stdio    *bool
	logLevel *string
	level    slog.Level
	version  *bool
}

// New returns the command name, whose flag errors and usage go to stderr.
func New(name string, stderr io.Writer) *Command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &Command{
		Name:     name,
		Flags:    fs,
		Stdout:   os.Stdout,
		stderr:   stderr,
		addr:     fs.String("addr", "", "listen address for MCP over streamable HTTP at /mcp, e.g. 127.0.0.1:8080 (default: MCP on stdin/stdout)"),
		stdio:    fs.Bool("stdio", false, "serve MCP on stdin/stdout, for clients that start the server as a subprocess (the default without -addr)"),
		logLevel: fs.String("log-level", "off", "debug, info (one line per tool call, never file contents), warn, error or off; logs go to stderr"),
		version:  fs.Bool("version", false, "print the version and exit"),
	}
	fs.Usage = func() {
		if c.About != "" {
			fmt.Fprintf(fs.Output(), "%s: %s\n\n", c.Name, c.About)
		}
		fmt.Fprintf(fs.Output(), "Usage: %s [flags]\n\nFlags:\n", c.Name)
		fs.PrintDefaults()
	}
	return c
}

// Parse parses args. After -version it prints "name version" on Stdout and returns
// [ErrVersion]; after -h it prints the usage on stderr and returns flag.ErrHelp. A mistake is a
// short error that points at -h, without the usage.
func (c *Command) Parse(args []string) error {
	c.Flags.SetOutput(io.Discard) // the flag package would print the whole usage after a mistake
	err := c.Flags.Parse(args)
	c.Flags.SetOutput(c.stderr)
	if errors.Is(err, flag.ErrHelp) {
		c.Flags.Usage()
		return err
	}
	if err != nil {
		return fmt.Errorf("%v (see -h)", err)
	}
	if *c.version {
		fmt.Fprintln(c.Stdout, c.Name, Version())
		return ErrVersion
	}
	if c.Flags.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; all options are flags (see -h)", c.Flags.Arg(0))
	}
	if *c.stdio && *c.addr != "" {
		return errors.New("-stdio and -addr exclude each other: -stdio serves MCP on stdin/stdout, -addr over HTTP")
	}
	level, err := ParseLogLevel(*c.logLevel)
	if err != nil {
		return err
	}
	c.level = level
	return nil
}

// Logger logs to stderr at the -log-level, and discards with "off" (the default).
func (c *Command) Logger() *slog.Logger {
	if c.level >= LevelOff {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: c.level}))
}

// Serve serves tools with an MCP server until ctx is done: over stdin/stdout without -addr,
// else with the streamable HTTP transport at /mcp on the -addr address. Over HTTP it prints
// "name: serving MCP on URL" on stderr once it listens, so that a caller that passed port 0 can
// find it.
func (c *Command) Serve(ctx context.Context, tools []adapters.Tool, logger *slog.Logger) error {
	server := mcp.NewServer(&mcp.Implementation{Name: c.Name, Version: Version()}, &mcp.ServerOptions{Logger: mcpsdk.QuietLogger(logger)})
	mcpsdk.Register(server, tools, mcpsdk.Options{Logger: logger})
	if *c.addr == "" {
		// A malformed line gets a JSON-RPC parse error and the session goes on (the SDK's own
		// stdio transport would end it).
		return server.Run(ctx, mcpsdk.StdioTransport(os.Stdin, os.Stdout, mcpsdk.StdioOptions{}))
	}
	ln, err := net.Listen("tcp", *c.addr)
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

// newHTTPServer is the HTTP server of -addr, with every timeout but the write timeout set: a
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
