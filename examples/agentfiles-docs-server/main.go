// Command agentfiles-docs-server serves Markdown documentation to AI agents over MCP: four tools
// (list_documentation_files, table_of_contents, read_sections, search) over one or more
// documentation directories, each file addressed by a stable ID (f1, f2, …).
//
// Usage:
//
//	agentfiles-docs-server -docs ./docs [-docs ./more-docs] [-include '*.md'] [-max-toc-depth 3] [-addr 127.0.0.1:8080] [-log-level info] [-version]
//
// Without -addr it speaks MCP on stdin/stdout (for clients that start it as a subprocess);
// with -addr it serves the MCP streamable HTTP transport at /mcp on that address. It is built
// only from the public API of github.com/agentfiles/agentfiles (fileid, adapters/fileidtools,
// adapters/mcpsdk, the last through examples/internal/mcpcmd, which it shares with
// agentfiles-guide-server) and links no other tool family and no database driver.
package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/fileidtools"
	"github.com/agentfiles/agentfiles/examples/internal/mcpcmd"
	"github.com/agentfiles/agentfiles/fileid"
)

func main() {
	mcpcmd.Main("agentfiles-docs-server", "serves Markdown documentation directories to AI agents over MCP "+
		"(list_documentation_files, table_of_contents, read_sections, search), each file addressed by a stable ID", run)
}

// run runs the command with args; cmd holds its flags and where it writes.
func run(ctx context.Context, cmd *mcpcmd.Command, args []string) error {
	tools, logger, err := build(ctx, cmd, args)
	if err != nil {
		return err
	}
	return cmd.Serve(ctx, tools, logger)
}

// build parses args and returns the tool set the command serves.
func build(ctx context.Context, cmd *mcpcmd.Command, args []string) ([]adapters.Tool, *slog.Logger, error) {
	fs := cmd.Flags
	var dirs, includes mcpcmd.ListFlag
	fs.Var(&dirs, "docs", "documentation `directory` (required); repeat for several, in priority order (IDs follow this order)")
	fs.Var(&includes, "include", "file-name `pattern` to serve, e.g. '*.md'; repeatable (default *.md, *.mdx, *.markdown)")
	maxDepth := fs.Int("max-toc-depth", fileid.DefaultMaxTOCDepth, "default depth of table_of_contents (1-6)")
	if err := cmd.Parse(args); err != nil {
		return nil, nil, err
	}
	if len(dirs) == 0 {
		return nil, nil, errors.New("no -docs directory given: name the Markdown directory to serve, e.g. -docs ./docs (repeatable; see -h)")
	}

	logger := cmd.Logger()
	var roots []fileid.Root
	for _, d := range dirs {
		root, err := fileid.DirRoot(d, d)
		if err != nil {
			return nil, nil, err
		}
		roots = append(roots, root)
	}
	reg, err := fileid.New(ctx, roots, fileid.Options{Include: includes, MaxTOCDepth: *maxDepth, Logger: logger})
	if err != nil {
		return nil, nil, err
	}
	logger.Info("registry built", "files", reg.Len(), "skipped", len(reg.Skipped()))
	go func() { _ = reg.Warm(ctx) }() // parse headings now rather than on the first question

	return fileidtools.Tools(reg), logger, nil
}
