package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentfiles/agentfiles/adapters/consulttools"
	"github.com/agentfiles/agentfiles/adapters/exprtools"
	"github.com/agentfiles/agentfiles/adapters/fileidtools"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/expr"
	"github.com/agentfiles/agentfiles/fileid"
)

// addDocs adds the documentation tools (fileid) over the -docs directories, in flag order.
func (a *app) addDocs(ctx context.Context, c config, logger *slog.Logger) error {
	if len(c.docs) == 0 {
		a.setup = append(a.setup, "docs: off (-docs DIR serves a Markdown directory through list_documentation_files and friends)")
		return nil
	}
	roots := make([]fileid.Root, 0, len(c.docs))
	for _, dir := range c.docs {
		root, err := fileid.DirRoot(filepath.Base(filepath.Clean(dir)), dir)
		if err != nil {
			return fmt.Errorf("-docs %s: %w", dir, err)
		}
		roots = append(roots, root)
	}
	reg, err := fileid.New(ctx, roots, fileid.Options{Logger: logger})
	if err != nil {
		return fmt.Errorf("-docs: %w", err)
	}
	a.tools = append(a.tools, fileidtools.Tools(reg)...)
	a.setup = append(a.setup, fmt.Sprintf("docs: %d Markdown files from %d director(ies)", reg.Len(), len(roots)))
	return nil
}

// addCatalog adds the guide tools (expr) over the -catalog file. They are read-only unless
// -catalog-writable; then agents may add and change categories, whose directories must lie
// below the catalog file's directory.
func (a *app) addCatalog(c config, logger *slog.Logger) error {
	if c.catalog == "" {
		a.setup = append(a.setup, "catalog: off (-catalog FILE serves a YAML catalog through get_content and friends)")
		return nil
	}
	abs, err := filepath.Abs(c.catalog)
	if err != nil {
		return fmt.Errorf("-catalog: %w", err)
	}
	cat, err := expr.Load(abs, expr.Options{Logger: logger, DirRoots: []string{filepath.Dir(abs)}})
	if err != nil {
		return fmt.Errorf("-catalog %s: %w", c.catalog, err)
	}
	a.tools = append(a.tools, exprtools.Tools(cat, exprtools.Options{ReadOnly: !c.catalogWritable})...)
	mode := "read-only; -catalog-writable lets agents edit it"
	if c.catalogWritable {
		mode = "writable, category directories confined to " + filepath.Dir(abs)
	}
	a.setup = append(a.setup, "catalog: "+c.catalog+" ("+mode+")")
	return nil
}

// ConsultAPIKeyEnv names the environment variable that holds the consultation model's API key.
// A key on the command line would show in process listings.
const ConsultAPIKeyEnv = "AGENTFILES_CONSULT_API_KEY"

// addConsult adds the consultation tool when -consult-model names a model and -consult-root at
// least one directory. The tool reads files of this machine by absolute path and sends them to
// that model, so it is off by default and confined to the -consult-root directories: never the
// whole machine unless an operator names / explicitly.
func (a *app) addConsult(c config, logger *slog.Logger) error {
	if c.consultModel == "" {
		a.setup = append(a.setup, "consult: off (-consult-model, -consult-base-url and -consult-root DIR enable the consultation tool)")
		return nil
	}
	if len(c.consultRoots) == 0 {
		msg := "consult: off: -consult-model needs -consult-root DIR (repeatable), the directories whose files may be sent to the model"
		a.setup = append(a.setup, msg)
		logger.Warn("consultation tool not offered: give -consult-root DIR (repeatable) to name the directories whose files may be sent to the model", "model", c.consultModel)
		return nil
	}
	roots := make([]string, len(c.consultRoots))
	for i, r := range c.consultRoots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return fmt.Errorf("-consult-root %s: %w", r, err)
		}
		roots[i] = abs
	}
	x, err := consult.NewExpander(consult.ExpanderOptions{Roots: roots})
	if err != nil {
		return fmt.Errorf("-consult-root: %w", err)
	}
	m, err := consult.NewOpenAIModel(c.consultModel, consult.OpenAIModelOptions{
		BaseURL:       c.consultBaseURL,
		APIKey:        os.Getenv(ConsultAPIKeyEnv),
		ContextWindow: consult.Tokens(c.consultContextTokens),
		Logger:        logger,
	})
	if err != nil {
		return fmt.Errorf("-consult-model/-consult-base-url: %w", err)
	}
	cons := consult.NewConsultant(consult.ConsultantOptions{Expander: x, Models: []consult.Model{m}, Logger: logger})
	a.tools = append(a.tools, consulttools.Tools(cons)...)
	base := c.consultBaseURL
	if base == "" {
		base = consult.DefaultOpenAIBaseURL
	}
	a.setup = append(a.setup, fmt.Sprintf("consult: model %s at %s (reads local files inside %s)", c.consultModel, base, strings.Join(roots, ", ")))
	return nil
}
