// Package exprtools is the guide tool set: agent tools over an [expr.Catalog] of categories
// (named directories of documents) and collections (named selections), fetched with content
// expressions such as "lang/python+java,docs/api,guidelines".
//
// # Tools
//
// [Tools] returns the set, ready for any binding (adapters/mcpsdk, adapters/httpapi):
//
//	get_content             the documents an expression names, in one text (or MIME multipart)
//	get_collection_content  the same for one collection name
//	category_list           the categories: name, directory, default patterns, description
//	collection_list         the collections: members as terms, or a stored expression
//	category_add/update/remove, collection_add/update/remove
//	                        change the catalog; left out with [Options].ReadOnly
//
// Changes are saved to the catalog file when the catalog was loaded from one, keeping the file's
// comments and layout (see package expr).
//
//	cat, err := expr.Load("guide/catalog.yaml", expr.Options{DirRoots: []string{"guide"}})
//	if err != nil { … }
//	mcpsdk.Register(server, exprtools.Tools(cat, exprtools.Options{}), mcpsdk.Options{})
//
// # Errors
//
// Tool errors are *agentfiles.Error values with expr's codes (PARSE_ERROR, whose message gives
// the byte position and a suggestion; UNKNOWN_NAME, listing close matches; CYCLE, INVALID_NAME,
// INVALID_PATTERN, IN_USE, CATALOG_CHANGED, TEMPLATE_ERROR) or the shared ALREADY_EXISTS and
// INVALID_ARGUMENT; adapters.ErrorOf gives the {code, message, retryable} an agent sees.
//
// # Safety
//
// An agent that may add categories can point them at any directory the process can read:
// restrict that with expr.Options.DirRoots, or serve the read-only set.
package exprtools
