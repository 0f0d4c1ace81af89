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
	"log/slog"
	"path/filepath"

	"github.com/agentfiles/agentfiles/adapters/exprtools"
	"github.com/agentfiles/agentfiles/examples/internal/mcpcmd"
	"github.com/agentfiles/agentfiles/expr"
)

func main() { mcpcmd.Main("guide-server", run) }

// run runs the command with args; cmd holds its flags and where it writes.
func run(ctx context.Context, cmd *mcpcmd.Command, args []string) error {
	fs := cmd.Flags
	catalog := fs.String("catalog", "examples/guide-server/example/catalog.yaml", "catalog YAML file (categories and collections)")
	readOnly := fs.Bool("read-only", false, "serve only get_content, get_collection_content and the list tools")
	var allowDirs mcpcmd.ListFlag
	fs.Var(&allowDirs, "allow-dir", "directory that category_add/update may point into; repeatable (default: the catalog's directory)")
	if err := fs.Parse(args); err != nil {
		return err
	}

	logger := cmd.Logger(slog.LevelDebug)
	if len(allowDirs) == 0 {
		allowDirs = mcpcmd.ListFlag{filepath.Dir(*catalog)}
	}
	cat, err := expr.Load(*catalog, expr.Options{Logger: logger, DirRoots: allowDirs})
	if err != nil {
		return err
	}
	logger.Info("guide-server: catalog loaded", "path", cat.Path(),
		"categories", len(cat.Categories()), "collections", len(cat.Collections()))

	return cmd.Serve(ctx, exprtools.Tools(cat, exprtools.Options{ReadOnly: *readOnly}), logger)
}
