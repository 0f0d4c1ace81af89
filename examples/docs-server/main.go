// Command docs-server serves Markdown documentation to AI agents over MCP: four tools
// (list_documentation_files, table_of_contents, read_sections, search) over one or more
// documentation directories, each file addressed by a stable ID (f1, f2, …).
//
// Usage:
//
//	docs-server -dir ./docs [-dir ./more-docs] [-include '*.md'] [-max-toc-depth 3] [-http 127.0.0.1:8080]
//
// Without -http it speaks MCP on stdin/stdout (for clients that start it as a subprocess);
// with -http it serves the MCP streamable HTTP transport at /mcp on that address. It is built
// only from the public API of github.com/agentfiles/agentfiles (fileid, adapters/fileidtools,
// adapters/mcpsdk) and links no other tool family and no database driver.
package main

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
	"strings"
	"syscall"
	"time"

	"github.com/agentfiles/agentfiles/adapters/fileidtools"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/fileid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "docs-server:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("docs-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var dirs, includes listFlag
	fs.Var(&dirs, "dir", "documentation directory; repeat for several, in priority order (IDs follow this order)")
	fs.Var(&includes, "include", "file-name pattern to serve, e.g. '*.md'; repeatable (default *.md, *.mdx, *.markdown)")
	maxDepth := fs.Int("max-toc-depth", fileid.DefaultMaxTOCDepth, "default depth of table_of_contents (1-6)")
	httpAddr := fs.String("http", "", "serve MCP streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
	verbose := fs.Bool("v", false, "log to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if len(dirs) == 0 {
		fs.Usage()
		return errors.New("at least one -dir is required")
	}

	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	var roots []fileid.Root
	for _, d := range dirs {
		root, err := fileid.DirRoot(d, d)
		if err != nil {
			return err
		}
		roots = append(roots, root)
	}
	reg, err := fileid.New(ctx, roots, fileid.Options{Include: includes, MaxTOCDepth: *maxDepth, Logger: logger})
	if err != nil {
		return err
	}
	logger.Info("docs-server: registry built", "files", reg.Len(), "skipped", len(reg.Skipped()))
	go func() { _ = reg.Warm(ctx) }() // parse headings now rather than on the first question

	tools := fileidtools.Tools(reg)
	newServer := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "agentfiles-docs-server", Version: "0.1.0"}, nil)
		mcpsdk.Register(s, tools, mcpsdk.Options{Logger: logger})
		return s
	}

	if *httpAddr == "" {
		return newServer().Run(ctx, &mcp.StdioTransport{})
	}
	return serveHTTP(ctx, *httpAddr, newServer(), stderr)
}

// serveHTTP serves the streamable HTTP transport at /mcp until ctx is done. It prints the
// listening URL on stderr, so that a caller that passed port 0 can find it.
func serveHTTP(ctx context.Context, addr string, server *mcp.Server, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "docs-server: serving MCP on http://%s/mcp\n", ln.Addr())
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
