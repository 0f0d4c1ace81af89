// Package fileio is a project-scoped, multi-tenant text file store for AI agents: the types,
// path rules, limits, configuration and error codes of the FileIO tools, the Service that
// enforces them, and the Store contract that backends (fileio/memstore, fileio/pgstore)
// implement.
package fileio
