// Command server is the agentfiles all-in-one server: every tool family over MCP (streamable
// HTTP at /mcp, or stdio with -stdio), the same tools as a JSON API at /tools, and the FileIO
// console at /.
//
//	go run ./examples/server
//
// With no flags it keeps files in memory, indexes them with a hashing embedder (no network),
// listens on 127.0.0.1:8080 and accepts the well-known bearer token "dev". -database-url and
// -redis-url switch to PostgreSQL and Redis; -docs and -catalog add the documentation and
// catalog tools. See README.md and -h.
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
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}
