// Package e2e drives the built example servers with the npm MCP Inspector CLI, a real MCP client
// written independently of the Go SDK, over stdio and over streamable HTTP. It has only tests:
// among them, the stdio MCP configurations of README.md run as written from a directory outside
// the repository, and go install ./examples/... yields the four agentfiles-* commands.
//
// The inspector is found through AGENTFILES_MCP_INSPECTOR (set by .ci/run after `npm install` in
// .ci/), or in .ci/node_modules. Without it the tests skip, unless
// AGENTFILES_REQUIRE_SERVICES=1 makes that a failure.
package e2e
