package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/consulttools"
	"github.com/agentfiles/agentfiles/adapters/exprtools"
	"github.com/agentfiles/agentfiles/adapters/fileidtools"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/consult/openai"
	"github.com/agentfiles/agentfiles/examples/internal/bundled"
	"github.com/agentfiles/agentfiles/expr"
	"github.com/agentfiles/agentfiles/fileid"
)

// addDocs adds the documentation tools (fileid) over the -docs directories, in flag order, or
// over the short guide to the tools bundled in the binary. Their names get -docs-tool-prefix
// (docs_search next to file_search).
func (a *app) addDocs(ctx context.Context, c config, logger *slog.Logger) error {
	dirs, what := c.docs, "from -docs"
	if len(dirs) == 0 {
		dir, err := a.bundledDir()
		if err != nil {
			return err
		}
		dirs, what = []string{filepath.Join(dir, bundled.DocsDir)}, "bundled guide to the tools, read-only; -docs DIR serves your own"
	}
	roots := make([]fileid.Root, 0, len(dirs))
	for _, dir := range dirs {
		root, err := fileid.DirRoot(filepath.Base(filepath.Clean(dir)), dir)
		if err != nil {
			return fmt.Errorf("%s %s: %w", flagRef("docs"), dir, err)
		}
		roots = append(roots, root)
	}
	reg, err := fileid.New(ctx, roots, fileid.Options{Logger: logger})
	if err != nil {
		return fmt.Errorf("%s: %w", flagRef("docs"), err)
	}
	a.docDirs = dirs
	tools := adapters.WithPrefix(fileidtools.Tools(reg), c.docsToolPrefix)
	a.tools = append(a.tools, tools...)
	a.setup = append(a.setup, fmt.Sprintf("docs: %d Markdown file(s) (%s), tools %s…", reg.Len(), what, tools[0].Name))
	return nil
}

// bundledDir returns the directory of the content bundled in the binary
// (examples/internal/bundled): the same on every run of this build, so that the consultation
// tool's description, which names it, does not change from run to run.
func (a *app) bundledDir() (string, error) {
	if a.bundled != "" {
		return a.bundled, nil
	}
	dir, remove, err := bundled.Extract()
	if err != nil {
		return "", fmt.Errorf("extracting the bundled documentation and catalog: %w", err)
	}
	a.closers = append(a.closers, remove)
	a.bundled = dir
	return dir, nil
}

// addCatalog adds the guide tools (expr) over the -catalog file, or over the example catalog
// bundled in the binary. They are read-only unless -catalog-writable; then agents may add and
// change categories, whose directories must lie below the catalog file's directory.
func (a *app) addCatalog(c config, logger *slog.Logger) error {
	file, what := c.catalog, c.catalog
	if file == "" {
		if c.catalogWritable {
			return fmt.Errorf("%s needs %s: the bundled example catalog cannot be changed", flagRef("catalog-writable"), flagRef("catalog"))
		}
		dir, err := a.bundledDir()
		if err != nil {
			return err
		}
		file, what = filepath.Join(dir, bundled.CatalogFile), "bundled example catalog; -catalog FILE serves your own"
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return fmt.Errorf("%s: %w", flagRef("catalog"), err)
	}
	cat, err := expr.Load(abs, expr.Options{Logger: logger, DirRoots: []string{filepath.Dir(abs)}})
	if err != nil {
		return fmt.Errorf("%s %s: %w", flagRef("catalog"), file, err)
	}
	a.tools = append(a.tools, exprtools.Tools(cat, exprtools.Options{ReadOnly: !c.catalogWritable})...)
	mode := "read-only; -catalog-writable lets agents edit it"
	if c.catalogWritable {
		mode = "writable, category directories confined to " + filepath.Dir(abs)
	}
	a.setup = append(a.setup, "catalog: "+what+" ("+mode+")")
	return nil
}

// A consultation runs for seconds to minutes on this server's model key and holds its prompt
// (up to the model's context window) meanwhile: each caller runs at most consultSlotsPerTenant
// at once, all callers consultSlots (RESOURCE_BUSY beyond, at once).
const (
	consultSlotsPerTenant = 2
	consultSlots          = 16
)

// ConsultAPIKeyEnv names the environment variable that holds the consultation model's API key.
// A key on the command line would show in process listings.
const ConsultAPIKeyEnv = "AGENTFILES_CONSULT_API_KEY"

// addConsult adds the consultation tool. It reads files of this machine by absolute path and
// sends them to a model, so it is confined to the -consult-root directories, by default the
// documentation directories (already served to agents): never the whole machine unless an
// operator names / explicitly. Without -consult-model the tool is offered all the same and
// answers every call with how to configure a model.
func (a *app) addConsult(c config, logger *slog.Logger) error {
	dirs := c.consultRoots
	if len(dirs) == 0 {
		dirs = a.docDirs
	}
	roots := make([]string, len(dirs))
	for i, r := range dirs {
		abs, err := filepath.Abs(r)
		if err != nil {
			return fmt.Errorf("%s %s: %w", flagRef("consult-root"), r, err)
		}
		roots[i] = abs
	}
	x, err := consult.NewExpander(consult.ExpanderOptions{Roots: roots})
	if err != nil {
		return fmt.Errorf("%s: %w", flagRef("consult-root"), err)
	}
	where := strings.Join(roots, ", ")
	if len(c.consultRoots) == 0 {
		where += " (the documentation; -consult-root DIR names others)"
	}
	if c.consultModel == "" {
		cons := consult.NewConsultant(consult.ConsultantOptions{Expander: x, Logger: logger})
		a.tools = append(a.tools, unconfigured(consulttools.Tools(cons))...)
		a.setup = append(a.setup, "consult: no model configured (-consult-model NAME, -consult-base-url URL and $"+ConsultAPIKeyEnv+
			", or consult.model in -config); the tool says so when called; reads only inside "+where)
		return nil
	}
	m, err := openai.New(c.consultModel, openai.Options{
		BaseURL:       c.consultBaseURL,
		APIKey:        os.Getenv(ConsultAPIKeyEnv),
		ContextWindow: consult.Tokens(c.consultContextTokens),
		Logger:        logger,
	})
	if err != nil {
		return fmt.Errorf("%s, %s: %w", flagRef("consult-model"), flagRef("consult-base-url"), err)
	}
	cons := consult.NewConsultant(consult.ConsultantOptions{Expander: x, Models: []consult.Model{m}, Logger: logger})
	a.tools = append(a.tools, adapters.LimitConcurrency(consulttools.Tools(cons), consultSlotsPerTenant, consultSlots)...)
	base := c.consultBaseURL
	if base == "" {
		base = openai.DefaultBaseURL
	}
	a.setup = append(a.setup, fmt.Sprintf("consult: model %s at %s (reads local files inside %s)", c.consultModel, base, where))
	return nil
}

// unconfigured makes the consultation tools answer every call with how the operator configures
// a model.
func unconfigured(tools []adapters.Tool) []adapters.Tool {
	out := make([]adapters.Tool, len(tools))
	for i, t := range tools {
		t.Description += "\n\nNo model is configured on this server yet: every call fails with INVALID_CONFIG until the operator configures one."
		t.Handler = func(context.Context, json.RawMessage) (any, error) {
			return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig,
				"no consultation model is configured on this server: its operator restarts it with -consult-model NAME "+
					"(and -consult-base-url URL for a provider other than OpenAI, the key in $"+ConsultAPIKeyEnv+"), "+
					"or sets consult.model and consult.base_url in the -config file", "model")
		}
		out[i] = t
	}
	return out
}
