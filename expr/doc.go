// Package expr retrieves documents by content expressions over a catalog of categories and
// collections, the model of a "guide" server that hands an agent the right documentation.
//
// # Categories and collections
//
// A category is a named directory with default glob patterns ("lang" is ./lang with "*.md").
// A collection is a named selection: a list of categories (each optionally with its own
// patterns) or a stored expression. Both live in a [Catalog] loaded from YAML:
//
//	categories:
//	  lang: {dir: lang, patterns: ["*.md"], description: Languages}
//	  docs: {dir: /srv/docs, description: Product documentation}
//	collections:
//	  mixed-example:
//	    description: Demonstrates both syntaxes
//	    categories:
//	      - lang                            # default patterns
//	      - docs: ["getting-started*.md"]   # override
//	  onboarding: {expression: "docs/intro+setup,lang/go"}
//
// A relative dir is relative to the catalog file. Edits through the Catalog (AddCategory,
// UpdateCollection, ...) rewrite only the lines of the entry they touch, so comments, order,
// blank lines and alignment elsewhere survive, and the file is replaced atomically.
//
// # Expressions
//
//	expression := term ("," term)*
//	term       := name ["/" pattern ("+" pattern)*]
//
// "lang/python+java,docs/api,guidelines" names three terms: the lang category with patterns
// python and java, docs with api, and guidelines with its defaults. Comma binds loosest, then
// slash, then plus; only the first "/" separates the name, so "docs/guides/*.md" is a pattern
// with a directory. [Parse] reports malformed expressions as PARSE_ERROR whose message gives
// the byte position and a suggestion; its cause, a [SyntaxError], holds them for programs. Names are looked up leniently (system names may start with "_"); creating
// a name is strict (see [ValidateName]).
//
// # Resolution
//
// [Catalog.Resolve] looks each name up as a collection first, then as a category. Collections
// expand recursively; including oneself, directly or not, is a CYCLE error naming
// the cycle ("a → b → a"), while a collection reached twice is expanded once. A category's
// patterns come from the highest of three tiers:
//
//  1. the call: the term's own patterns, or the call's pattern argument;
//  2. the nearest collection's override;
//  3. the category's default patterns.
//
// Patterns are globs relative to the category directory: "*", "?", "[a-z]", "{a,b}" and "**"
// (files up to [MaxDepth] directory levels below the category directory: with MaxDepth 8,
// c/l1/…/l8/f.md is found by "**/*.md"). A pattern whose last segment has no extension also matches
// "pattern.*", so "python" finds python.md. Names starting with "." or "__" are skipped, each
// pattern yields at most 100 documents (reported when cut), and documents never come from
// outside the category directory: directories are read through os.Root, so symlinks that
// leave it are not followed. Results are de-duplicated by absolute path, first one wins.
//
// # Rendering
//
// [Render] turns documents into one text: a single document is its content; several are
// parts headed "==> category/path <==" (or MIME multipart with [FormatMultipart]). Files
// ending in ".tmpl" are executed with text/template against caller data. Output has a byte
// budget; a cut output says so in Truncated and Message. [Catalog.Content] does parse,
// resolve and render in one call. Nothing matching is a success with an advisory Message.
//
// # Errors
//
// Every error is an *[agentfiles.Error] with a stable code: this package's own (PARSE_ERROR,
// UNKNOWN_NAME, CYCLE, INVALID_NAME, INVALID_PATTERN, INVALID_CATALOG, IN_USE,
// CATALOG_CHANGED, TEMPLATE_ERROR) or a shared one (ALREADY_EXISTS, INVALID_ARGUMENT,
// INTERNAL, TIMEOUT, CANCELED); [Codes] lists them all. Branch with errors.Is against the Err*
// sentinels here and in package agentfiles, never on the message:
//
//	if errors.Is(err, expr.ErrUnknownName) { … }
//	var se *expr.SyntaxError
//	if errors.As(err, &se) { fmt.Println(se.Pos, se.Suggestion) }
//
// INVALID_CATALOG is of kind internal: a malformed catalog file is the server's problem, and
// the bindings hide its details from agents.
//
// # Concurrency
//
// A [Catalog] is safe for concurrent use: resolutions read an immutable snapshot while
// mutations are serialised and published only after the file is saved. [Expression] values
// are plain data.
package expr
