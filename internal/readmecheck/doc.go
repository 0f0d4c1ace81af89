// Package readmecheck holds the tests that compile and run the Go code in the repository's
// READMEs.
//
// # What it checks
//
// Every ```go block of README.md and examples/*/README.md must be a complete Go file (package
// clause and imports) that builds and passes go vet as pasted, against this module
// (TestREADMEGoBlocksCompile). Every block of README.md must also run as pasted into a fresh
// directory outside the repository, built offline against this checkout, and be gofmt-clean
// (TestREADMEGoBlocksRun): the main snippet serves and answers a write and a read over its JSON
// API, a stdio MCP server keeps stdout for its client, the others exit 0. CI runs both first
// and again with the rest of go test ./... (.ci/run).
package readmecheck
