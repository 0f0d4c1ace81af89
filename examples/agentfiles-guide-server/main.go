// Command agentfiles-guide-server serves a guide - categories and collections of documents
// described by a YAML catalog - to AI agents over MCP, with content expressions such as
// "lang/python+java,docs/api,guidelines".
//
// Usage:
//
//	agentfiles-guide-server [-catalog FILE] [-catalog-writable] [-allow-dir DIR]... [-addr 127.0.0.1:8080] [-log-level info] [-version]
//
// Without -catalog it serves the example catalog bundled in the binary (read-only, from a
// copy in the user's cache directory), so it works from any directory. The catalog is read-only unless
// -catalog-writable: then the tools that change it save it back to FILE, keeping its comments.
// Without -addr it speaks MCP on stdin/stdout (for clients that start it as a subprocess); with
// -addr it serves the MCP streamable HTTP transport at /mcp on that address. It is built only
// from the public API of github.com/agentfiles/agentfiles.
package main

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/exprtools"
	"github.com/agentfiles/agentfiles/examples/internal/bundled"
	"github.com/agentfiles/agentfiles/examples/internal/mcpcmd"
	"github.com/agentfiles/agentfiles/expr"
)

func main() {
	mcpcmd.Main("agentfiles-guide-server", "serves a guide (categories and collections of documents described by a YAML catalog) "+
		"to AI agents over MCP, with content expressions such as lang/python+java,docs/api", run)
}

// run runs the command with args; cmd holds its flags and where it writes.
func run(ctx context.Context, cmd *mcpcmd.Command, args []string) error {
	tools, logger, cleanup, err := build(cmd, args)
	if err != nil {
		return err
	}
	defer cleanup()
	return cmd.Serve(ctx, tools, logger)
}

// build parses args and returns the tool set the command serves, and what removes the
// extracted bundle once it is no longer served.
func build(cmd *mcpcmd.Command, args []string) (_ []adapters.Tool, _ *slog.Logger, cleanup func(), err error) {
	cleanup = func() {}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	fs := cmd.Flags
	catalog := fs.String("catalog", "", "catalog YAML file (categories and collections); default: the example catalog bundled in the binary")
	writable := fs.Bool("catalog-writable", false, "also serve the tools that add, change and remove categories and collections, saved to -catalog")
	var allowDirs mcpcmd.ListFlag
	fs.Var(&allowDirs, "allow-dir", "`directory` that category_add/update may point into with -catalog-writable; repeatable (default: the catalog's directory)")
	if err := cmd.Parse(args); err != nil {
		return nil, nil, cleanup, err
	}
	if *catalog == "" {
		if *writable {
			return nil, nil, cleanup, errors.New("-catalog-writable needs -catalog FILE: the bundled example catalog cannot be changed")
		}
		dir, remove, err := bundled.Extract()
		if err != nil {
			return nil, nil, cleanup, err
		}
		cleanup = remove
		*catalog = filepath.Join(dir, bundled.CatalogFile)
	}

	logger := cmd.Logger()
	if len(allowDirs) == 0 {
		allowDirs = mcpcmd.ListFlag{filepath.Dir(*catalog)}
	}
	cat, err := expr.Load(*catalog, expr.Options{Logger: logger, DirRoots: allowDirs})
	if err != nil {
		return nil, nil, cleanup, err
	}
	logger.Info("catalog loaded", "path", cat.Path(), "writable", *writable,
		"categories", len(cat.Categories()), "collections", len(cat.Collections()))

	return exprtools.Tools(cat, exprtools.Options{ReadOnly: !*writable}), logger, cleanup, nil
}
