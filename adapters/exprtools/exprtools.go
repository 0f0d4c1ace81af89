package exprtools

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/expr"
)

// Options configure [Tools]; the zero value serves every tool.
type Options struct {
	// ReadOnly leaves out the tools that change the catalog (category_add/update/remove and
	// collection_add/update/remove); the list tools and get_content stay.
	ReadOnly bool
}

// syntax is the expression grammar, shared by the descriptions that take an expression.
const syntax = "Expression syntax: a comma-separated list of terms; each term is a category or collection name, " +
	"optionally followed by '/' and one or more glob patterns joined by '+'. " +
	"Examples: 'guidelines' (a category with its default patterns), 'docs/api' (the api document of docs; " +
	"a pattern without an extension also matches api.*), 'lang/python+java' (two patterns), " +
	"'lang/python+java,docs/api,guidelines' (three terms), 'docs/guides/*.md' (a subdirectory), " +
	"'docs/{intro,setup}.md' (alternatives), 'docs/**/*.md' (recursive), 'onboarding' (a stored collection). " +
	"Patterns support *, ?, [a-z], {a,b} and **."

type getContentIn struct {
	Expression             string         `json:"expression" jsonschema:"content expression, e.g. 'lang/python+java,docs/api,guidelines' or a collection name such as 'onboarding'"`
	Pattern                string         `json:"pattern,omitempty" jsonschema:"optional glob pattern(s), '+'-separated, applied to every term that has no '/patterns' of its own (also inside collections), overriding collection and category patterns; e.g. 'intro*'"`
	Format                 string         `json:"format,omitempty" jsonschema:"'delimited' (default: one document is returned bare, several are each headed by a '==> category/path <==' line) or 'multipart' (MIME multipart/mixed)" enum:"delimited,multipart"`
	MaxBytes               int64          `json:"max_bytes,omitempty" jsonschema:"output budget in bytes; default 262144, maximum 4194304 (larger values are clamped)"`
	MaxDocumentsPerPattern int            `json:"max_documents_per_pattern,omitempty" jsonschema:"documents one pattern may yield in one category; default 100, maximum 1000"`
	Data                   map[string]any `json:"data,omitempty" jsonschema:"values for documents ending in .tmpl, which are Go text/template files, e.g. {'Project': 'acme'}"`
}

type getCollectionContentIn struct {
	Collection string         `json:"collection" jsonschema:"collection name, as listed by collection_list, e.g. 'onboarding'"`
	Pattern    string         `json:"pattern,omitempty" jsonschema:"optional glob pattern(s), '+'-separated, overriding the collection's patterns, e.g. 'intro*'"`
	Format     string         `json:"format,omitempty" jsonschema:"'delimited' (default) or 'multipart'" enum:"delimited,multipart"`
	MaxBytes   int64          `json:"max_bytes,omitempty" jsonschema:"output budget in bytes; default 262144, maximum 4194304"`
	Data       map[string]any `json:"data,omitempty" jsonschema:"values for .tmpl documents"`
}

type getContentOut struct {
	Expression  string                  `json:"expression" jsonschema:"the expression in canonical form"`
	Content     string                  `json:"content" jsonschema:"the documents' text; empty when nothing matched"`
	ContentType string                  `json:"content_type" jsonschema:"MIME type of content"`
	Documents   []expr.RenderedDocument `json:"documents" jsonschema:"the documents in content, in order; omitted ones did not fit the budget"`
	Truncated   bool                    `json:"truncated" jsonschema:"true when something was left out; message says what and how to get it"`
	Message     string                  `json:"message,omitempty" jsonschema:"advisory: nothing matched, or what was cut and how to get the rest"`
}

type categoryOut struct {
	Name        string   `json:"name" jsonschema:"category name"`
	Dir         string   `json:"dir" jsonschema:"directory as written in the catalog (relative paths are relative to the catalog file)"`
	Patterns    []string `json:"patterns" jsonschema:"default glob patterns"`
	Description string   `json:"description,omitempty" jsonschema:"what the documents are about"`
}

type collectionOut struct {
	Name        string   `json:"name" jsonschema:"collection name"`
	Description string   `json:"description,omitempty" jsonschema:"what the collection is for"`
	Categories  []string `json:"categories,omitempty" jsonschema:"members as terms: 'name' (default patterns) or 'name/pattern1+pattern2' (override)"`
	Expression  string   `json:"expression,omitempty" jsonschema:"stored expression, when the collection is one"`
}

type noArgs struct{}

type categoryListOut struct {
	Categories []categoryOut `json:"categories" jsonschema:"all categories in catalog order"`
}

type collectionListOut struct {
	Collections []collectionOut `json:"collections" jsonschema:"all collections in catalog order"`
}

type categoryAddIn struct {
	Name        string   `json:"name" jsonschema:"new name: up to 30 characters, no whitespace, no '+', ',' or '/', not starting with '_' or '-'; e.g. 'api-reference'"`
	Dir         string   `json:"dir" jsonschema:"existing directory holding the documents; relative paths are relative to the catalog file"`
	Patterns    []string `json:"patterns,omitempty" jsonschema:"default glob patterns, e.g. ['*.md', 'guides/**/*.md']; default ['*.md']"`
	Description string   `json:"description,omitempty" jsonschema:"what the documents are about"`
}

type categoryUpdateIn struct {
	Name        string   `json:"name" jsonschema:"category to change"`
	Dir         *string  `json:"dir,omitempty" jsonschema:"new directory; omit to keep"`
	Patterns    []string `json:"patterns,omitempty" jsonschema:"new default patterns; omit to keep, [] to restore the default ['*.md']"`
	Description *string  `json:"description,omitempty" jsonschema:"new description; omit to keep, '' to clear"`
}

type nameIn struct {
	Name string `json:"name" jsonschema:"the name to remove"`
}

type collectionAddIn struct {
	Name        string   `json:"name" jsonschema:"new name, same rules as for categories; e.g. 'onboarding'"`
	Description string   `json:"description,omitempty" jsonschema:"what the collection is for"`
	Categories  []string `json:"categories,omitempty" jsonschema:"members as terms, e.g. ['lang', 'docs/getting-started*.md']; give this or expression"`
	Expression  string   `json:"expression,omitempty" jsonschema:"a stored expression, e.g. 'docs/intro+setup,lang/go'; give this or categories"`
}

type collectionUpdateIn struct {
	Name        string   `json:"name" jsonschema:"collection to change"`
	Description *string  `json:"description,omitempty" jsonschema:"new description; omit to keep, '' to clear"`
	Categories  []string `json:"categories,omitempty" jsonschema:"new members as terms (replaces the expression, if any)"`
	Expression  string   `json:"expression,omitempty" jsonschema:"new stored expression (replaces the categories, if any)"`
}

type categoryChangeOut struct {
	Category categoryOut `json:"category" jsonschema:"the category as saved"`
	Saved    bool        `json:"saved" jsonschema:"true when the catalog file was rewritten"`
}

type collectionChangeOut struct {
	Collection collectionOut `json:"collection" jsonschema:"the collection as saved"`
	Saved      bool          `json:"saved" jsonschema:"true when the catalog file was rewritten"`
}

type removeOut struct {
	Removed string `json:"removed" jsonschema:"the name that was removed"`
	Saved   bool   `json:"saved" jsonschema:"true when the catalog file was rewritten"`
}

// Tools returns the guide tools over a catalog: get_content, get_collection_content,
// category_list, collection_list and (unless opts.ReadOnly) category_add/update/remove and
// collection_add/update/remove. Changes are saved to the catalog file when the catalog has one.
// Errors carry expr's codes (PARSE_ERROR with a suggestion, UNKNOWN_NAME with close matches,
// CYCLE, INVALID_NAME, INVALID_PATTERN, ALREADY_EXISTS, IN_USE, CATALOG_CHANGED,
// TEMPLATE_ERROR) or INVALID_ARGUMENT.
//
// cat must not be nil. The tools are safe for concurrent use, as the Catalog is. Agents that
// may add categories can point them at any directory the process can read; restrict that with
// expr.Options.DirRoots, or set ReadOnly.
func Tools(cat *expr.Catalog, opts Options) []adapters.Tool {
	if cat == nil {
		panic("exprtools.Tools: nil *expr.Catalog")
	}
	ro := adapters.Annotations{ReadOnly: true, Idempotent: true}
	saved := cat.Path() != ""
	categories := kind[expr.Category, categoryOut, categoryListOut, categoryChangeOut]{
		all: cat.Categories, add: cat.AddCategory, update: cat.UpdateCategory, remove: cat.RemoveCategory,
		view: func(c expr.Category) categoryOut {
			return categoryOut{Name: c.Name, Dir: c.Dir, Patterns: c.EffectivePatterns(), Description: c.Description}
		},
		list:   func(vs []categoryOut) categoryListOut { return categoryListOut{Categories: vs} },
		change: func(v categoryOut) categoryChangeOut { return categoryChangeOut{Category: v, Saved: saved} },
		saved:  saved,
	}
	collections := kind[expr.Collection, collectionOut, collectionListOut, collectionChangeOut]{
		all: cat.Collections, add: cat.AddCollection, update: cat.UpdateCollection, remove: cat.RemoveCollection,
		view: func(c expr.Collection) collectionOut {
			out := collectionOut{Name: c.Name, Description: c.Description, Expression: c.Expression}
			for _, t := range c.Categories {
				out.Categories = append(out.Categories, t.String())
			}
			return out
		},
		list:   func(vs []collectionOut) collectionListOut { return collectionListOut{Collections: vs} },
		change: func(v collectionOut) collectionChangeOut { return collectionChangeOut{Collection: v, Saved: saved} },
		saved:  saved,
	}
	tools := []adapters.Tool{
		adapters.NewTool("get_content", "Get content",
			"Returns the text of documents selected by a content expression over the guide's categories "+
				"(named directories of documents) and collections (named selections). Use it to fetch "+
				"guidelines, references or docs before working on a task; call category_list and "+
				"collection_list first to see what exists. "+syntax+" A collection name expands to its "+
				"members; duplicates are returned once. Patterns come from, in priority order: the term's own "+
				"'/patterns' or the pattern argument, then the collection's override, then the category's "+
				"defaults. Nothing matching is not an error: content is empty and message explains. Output is "+
				"capped ("+fmt.Sprint(expr.DefaultMaxBytes>>10)+" KiB by default, truncated=true says so, message says how to get the rest). "+
				"Example: {\"expression\": \"lang/python+java,docs/api,guidelines\"} or "+
				"{\"expression\": \"lang\", \"pattern\": \"go\"}.",
			ro,
			func(ctx context.Context, in getContentIn) (getContentOut, error) {
				return content(ctx, cat, in.Expression, in.Pattern, in.Format, in.MaxBytes, in.MaxDocumentsPerPattern, in.Data)
			}),
		adapters.NewTool("get_collection_content", "Get collection content",
			"Returns the documents of one collection: the same as get_content with the collection's name "+
				"as the expression (prefer get_content, which also combines collections and categories). "+
				"Example: {\"collection\": \"onboarding\"} or {\"collection\": \"onboarding\", \"pattern\": \"intro*\"}.",
			ro,
			func(ctx context.Context, in getCollectionContentIn) (getContentOut, error) {
				if _, ok := cat.Collection(strings.TrimSpace(in.Collection)); !ok {
					return getContentOut{}, agentfiles.NewError(expr.CodeUnknownName, "no collection is named "+quoteArg(in.Collection)+
						"; call collection_list to see the names, or use get_content for categories", in.Collection)
				}
				return content(ctx, cat, in.Collection, in.Pattern, in.Format, in.MaxBytes, 0, in.Data)
			}),
		categories.listTool("category_list", "List categories",
			"Lists the categories: each a name usable in expressions, its directory, its default patterns "+
				"and a description. No arguments: {}."),
		collections.listTool("collection_list", "List collections",
			"Lists the collections: each a name usable in expressions, a description, and either its "+
				"members (as terms such as 'lang' or 'docs/getting-started*.md') or a stored expression. "+
				"No arguments: {}."),
	}
	if opts.ReadOnly {
		return tools
	}
	return append(tools,
		addTool(categories, "category_add", "Add a category",
			"Adds a category: a name for a directory of documents with default glob patterns. The name "+
				"must be new, at most 30 characters, without whitespace or '+', ',' and '/', and must not start "+
				"with '_' or '-'. The directory must exist. The catalog file is saved with its comments kept. "+
				"Example: {\"name\": \"api-reference\", \"dir\": \"docs/api\", \"patterns\": [\"*.md\"], "+
				"\"description\": \"HTTP API reference\"}.",
			func(in categoryAddIn) (expr.Category, error) {
				return expr.Category{Name: in.Name, Dir: in.Dir, Patterns: in.Patterns, Description: in.Description}, nil
			}),
		updateTool(categories, "category_update", "Update a category",
			"Changes a category's directory, default patterns or description; fields left out are kept. "+
				"A category cannot be renamed (add a new one and remove the old). "+
				"Example: {\"name\": \"docs\", \"patterns\": [\"*.md\", \"guides/**/*.md\"]}.",
			func(in categoryUpdateIn) (string, func(*expr.Category) error, error) {
				return in.Name, func(c *expr.Category) error {
					if in.Dir != nil {
						c.Dir = *in.Dir
					}
					if in.Patterns != nil {
						c.Patterns = in.Patterns
						if len(in.Patterns) == 0 {
							c.Patterns = nil
						}
					}
					if in.Description != nil {
						c.Description = *in.Description
					}
					return nil
				}, nil
			}),
		categories.removeTool("category_remove", "Remove a category",
			"Removes a category from the catalog (its files are not touched). Fails with IN_USE while a "+
				"collection lists it; remove it from those collections first. Example: {\"name\": \"old-docs\"}."),
		addTool(collections, "collection_add", "Add a collection",
			"Adds a collection: a named selection reusable in expressions. Give either categories, a list "+
				"of terms ('lang' uses the category's default patterns, 'docs/getting-started*.md' overrides "+
				"them, a collection name includes that collection), or expression, a stored expression. "+
				"Every name must exist and a collection cannot include itself. Name rules as for categories. "+
				"Examples: {\"name\": \"mixed-example\", \"categories\": [\"lang\", \"docs/getting-started*.md\"]} or "+
				"{\"name\": \"onboarding\", \"expression\": \"docs/intro+setup,lang/go\"}.",
			func(in collectionAddIn) (expr.Collection, error) {
				terms, err := parseTerms(in.Categories)
				return expr.Collection{Name: in.Name, Description: in.Description, Categories: terms, Expression: in.Expression}, err
			}),
		updateTool(collections, "collection_update", "Update a collection",
			"Changes a collection's description, members or stored expression; fields left out are kept. "+
				"Giving categories replaces a stored expression and the reverse. "+
				"Example: {\"name\": \"onboarding\", \"expression\": \"docs/intro+setup+faq,lang/go\"}.",
			func(in collectionUpdateIn) (string, func(*expr.Collection) error, error) {
				if len(in.Categories) > 0 && in.Expression != "" {
					return "", nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "give either categories or expression, not both", in.Name)
				}
				terms, err := parseTerms(in.Categories)
				return in.Name, func(c *expr.Collection) error {
					if in.Description != nil {
						c.Description = *in.Description
					}
					if len(terms) > 0 {
						c.Categories, c.Expression = terms, ""
					}
					if in.Expression != "" {
						c.Categories, c.Expression = nil, in.Expression
					}
					return nil
				}, err
			}),
		collections.removeTool("collection_remove", "Remove a collection",
			"Removes a collection from the catalog. Fails with IN_USE while another collection includes it. "+
				"Example: {\"name\": \"old-onboarding\"}."),
	)
}

// kind holds what differs between the category and the collection tools, so that the list,
// add, update and remove tools of both are built by the same code. E is the catalog entry
// (expr.Category or expr.Collection), V its view on the wire, L the list tool's result and C the
// result of add and update.
type kind[E, V, L, C any] struct {
	all    func() []E
	add    func(context.Context, E) error
	update func(ctx context.Context, name string, fn func(*E) error) (E, error)
	remove func(ctx context.Context, name string) error
	view   func(E) V
	list   func([]V) L
	change func(V) C
	saved  bool // the catalog has a file that changes are written to
}

func (k kind[E, V, L, C]) listTool(name, title, description string) adapters.Tool {
	return adapters.NewTool(name, title, description, adapters.Annotations{ReadOnly: true, Idempotent: true},
		func(ctx context.Context, _ noArgs) (L, error) {
			views := []V{}
			for _, e := range k.all() {
				views = append(views, k.view(e))
			}
			return k.list(views), nil
		})
}

func (k kind[E, V, L, C]) removeTool(name, title, description string) adapters.Tool {
	return adapters.NewTool(name, title, description, adapters.Annotations{Destructive: true},
		func(ctx context.Context, in nameIn) (removeOut, error) {
			if err := k.remove(ctx, in.Name); err != nil {
				return removeOut{}, err
			}
			return removeOut{Removed: in.Name, Saved: k.saved}, nil
		})
}

// addTool builds an add tool: entry turns the arguments into the entry to add. The result
// shows the entry as given, which is how the catalog saved it.
func addTool[In, E, V, L, C any](k kind[E, V, L, C], name, title, description string, entry func(In) (E, error)) adapters.Tool {
	return adapters.NewTool(name, title, description, adapters.Annotations{},
		func(ctx context.Context, in In) (C, error) {
			e, err := entry(in)
			if err == nil {
				err = k.add(ctx, e)
			}
			if err != nil {
				var zero C
				return zero, err
			}
			return k.change(k.view(e)), nil
		})
}

// updateTool builds an update tool: edit turns the arguments into the name of the entry and
// the change to make to it.
func updateTool[In, E, V, L, C any](k kind[E, V, L, C], name, title, description string, edit func(In) (string, func(*E) error, error)) adapters.Tool {
	return adapters.NewTool(name, title, description, adapters.Annotations{Destructive: true, Idempotent: true},
		func(ctx context.Context, in In) (C, error) {
			entryName, fn, err := edit(in)
			var e E
			if err == nil {
				e, err = k.update(ctx, entryName, fn)
			}
			if err != nil {
				var zero C
				return zero, err
			}
			return k.change(k.view(e)), nil
		})
}

func content(ctx context.Context, cat *expr.Catalog, expression, pattern, format string, maxBytes int64, maxDocs int, data map[string]any) (getContentOut, error) {
	opts := expr.ContentOptions{
		Resolve: expr.ResolveOptions{Pattern: pattern, MaxDocumentsPerPattern: maxDocs},
		Render:  expr.RenderOptions{Format: expr.Format(format), MaxBytes: maxBytes},
	}
	if data != nil {
		opts.Render.Data = data
	}
	r, err := cat.Content(ctx, expression, opts)
	if err != nil {
		return getContentOut{}, err
	}
	out := getContentOut{
		Expression:  r.Resolution.Expression,
		Content:     r.Content,
		ContentType: r.ContentType,
		Documents:   r.Documents,
		Truncated:   r.Truncated,
		Message:     r.Message,
	}
	if out.Documents == nil {
		out.Documents = []expr.RenderedDocument{}
	}
	return out, nil
}

// parseTerms turns collection members written as terms ("lang", "docs/intro*.md") into Terms.
func parseTerms(items []string) ([]expr.Term, error) {
	var out []expr.Term
	for _, it := range items {
		e, err := expr.Parse(it)
		if err != nil {
			return nil, err
		}
		if len(e.Terms) != 1 {
			return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "each item of categories is one term such as 'lang' or 'docs/intro*.md'; "+
				"split "+quoteArg(it)+" into several items", it)
		}
		out = append(out, e.Terms[0])
	}
	return out, nil
}

func quoteArg(s string) string { return "'" + s + "'" }
