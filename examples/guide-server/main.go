// Command guide-server serves a guide - categories and collections of documents described by a
// YAML catalog - to AI agents over MCP, with content expressions such as
// "lang/python+java,docs/api,guidelines".
//
// Usage:
//
//	guide-server [-catalog FILE] [-read-only] [-allow-dir DIR]... [-http 127.0.0.1:8080] [-v]
//
// Without -http it speaks MCP on stdin/stdout (for clients that start it as a subprocess); with
// -http it serves the MCP streamable HTTP transport at /mcp on that address. Tools that change
// the catalog save it back to FILE, keeping its comments. It is built only from the public API
// of github.com/agentfiles/agentfiles.
package main

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
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agentfiles/agentfiles/adapters/exprtools"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/expr"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "guide-server:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("guide-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	catalog := fs.String("catalog", "examples/guide-server/example/catalog.yaml", "catalog YAML file (categories and collections)")
	readOnly := fs.Bool("read-only", false, "serve only get_content, get_collection_content and the list tools")
	var allowDirs listFlag
	fs.Var(&allowDirs, "allow-dir", "directory that category_add/update may point into; repeatable (default: the catalog's directory)")
	httpAddr := fs.String("http", "", "serve MCP streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
	verbose := fs.Bool("v", false, "log to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}

	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	if len(allowDirs) == 0 {
		allowDirs = listFlag{filepath.Dir(*catalog)}
	}
	cat, err := expr.Load(*catalog, expr.Options{Logger: logger, DirRoots: allowDirs})
	if err != nil {
		return err
	}
	logger.Info("guide-server: catalog loaded", "path", cat.Path(),
		"categories", len(cat.Categories()), "collections", len(cat.Collections()))

	tools := exprtools.Tools(cat, exprtools.Options{ReadOnly: *readOnly})
	server := mcp.NewServer(&mcp.Implementation{Name: "agentfiles-guide-server", Version: "0.1.0"}, nil)
	mcpsdk.Register(server, tools, mcpsdk.Options{Logger: logger})

	if *httpAddr == "" {
		return server.Run(ctx, &mcp.StdioTransport{})
	}
	return serveHTTP(ctx, *httpAddr, server, stderr)
}

// serveHTTP serves the streamable HTTP transport at /mcp until ctx is done. It prints the
// listening URL on stderr, so that a caller that passed port 0 can find it.
func serveHTTP(ctx context.Context, addr string, server *mcp.Server, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpsdk.HTTPHandler(func(*http.Request) *mcp.Server { return server }, nil, nil))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "guide-server: serving MCP on http://%s/mcp\n", ln.Addr())
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
