// Command agentfiles-server is the agentfiles all-in-one server: every tool family over MCP
// (streamable HTTP at /mcp, or stdio with -stdio), the same tools as a JSON API at /tools, and
// the agentfiles console at /.
//
//	go install ./examples/agentfiles-server && agentfiles-server
//
// With no flags it serves all five tool families: files in memory, search with a hashing
// embedder (no network), a short guide to the tools as documentation and an example guide
// catalog (both bundled in the binary, read-only), and the consultation tool confined to the
// documentation directories (it says how to configure a model until one is). It listens on
// 127.0.0.1:8080 and accepts the well-known bearer token "dev". -config FILE reads every setting
// from YAML (config.example.yaml); -database-url and -redis-url switch to PostgreSQL and Redis.
// See README.md and -h.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	default:
		fmt.Fprintln(os.Stderr, commandName+":", err)
		os.Exit(1)
	}
}
