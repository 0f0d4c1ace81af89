// Package readmecheck holds the test that compiles the Go code in the repository's READMEs.
//
// # What it checks
//
// Every ```go block of README.md and examples/*/README.md must be a complete Go file (package
// clause and imports) that builds and passes go vet as pasted, against this module. CI runs it
// with the rest of go test ./... (.ci/run).
package readmecheck
