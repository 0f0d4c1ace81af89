// Package consult sends a set of local files and a question to a language model: it validates
// and expands an agent's files list, assembles the files into one prompt within size limits, and
// asks an OpenAI-compatible model.
//
// # Files lists
//
// A files list is a []string of absolute paths and file-name patterns, the format an agent
// writes in a tool call:
//
//	/home/me/project/src/*.py        every .py file in src (not in its subdirectories)
//	/home/me/project/*_test.go       a pattern may have text before the extension
//	/home/me/project/README.md       one file
//
// [Expand] (or an [Expander] with its own ignore list, see [NewExpander]) validates and expands
// it. The rules, each with its own error code:
//
//   - entries are absolute (NOT_ABSOLUTE);
//   - *, ? and [...] appear only in the last element (WILDCARD_IN_DIRECTORY), never as ** (RECURSIVE_WILDCARD);
//   - a pattern ends in a literal extension: *.py yes, * and data.* no (MISSING_EXTENSION);
//   - a directory needs a pattern; the error suggests one from the extensions found there (IS_DIRECTORY).
//
// Matching follows Python's glob.glob (a differential test checks it against python3): a
// leading wildcard does not match names starting with ".", [!a-z] negates a class, and there
// are no braces or backslash escapes. The ignore list ([DefaultIgnore]: .git, node_modules,
// __pycache__, .venv, .env, secrets.*, ...) applies to every path element, even of explicit
// paths, and to every element of the path a symbolic link resolves to: a link env-link.md ->
// .env is ignored as .env is. Results are sorted and de-duplicated; each bad entry yields an
// [EntryError] and the others go on.
//
// # Roots
//
// An Expander built with [ExpanderOptions.Roots] uses only files inside those directories, like
// the allowed directories of an MCP filesystem server: an entry that lies outside them, or a
// file that leads outside them through a symbolic link, is reported as OUTSIDE_ROOTS with the
// list of roots, whether or not the path exists there, and ".." is resolved before the check. Without roots (the default, and [Expand] and [Consult]) any
// file the process can read may be sent to the model, /etc/shadow included for a process
// running as root: give roots whenever the files list comes from an agent or another user.
// What is checked is the path at expansion time; files are read afterwards, so a link that
// someone swaps in between is not caught: keep the roots free of writers you do not trust.
//
// # Prompts and limits
//
// A [Formatter] (see [NewFormatter]) reads the files and assembles one prompt: a header with the
// file count, bytes and tokens, a listing grouped by directory, one "File: <path>" block per file
// (fenced so that file contents cannot close the block), and the problems. [Limits] caps each
// file and the total in bytes and in tokens; a file over a limit is left out and reported with
// its size, never cut. Binary and non-UTF-8 files are reported, not sent. Tokens are counted by
// a [TokenCounter]; the default [EstimateCounter] is an estimate and the prompt says so.
//
// # Consulting a model
//
// [Consult] (or [Consultant.Consult] with a fixed configuration, see [NewConsultant]) expands,
// formats, checks the prompt against the [Model]'s context window before sending anything
// (CONTEXT_TOO_LARGE with the numbers and the largest files), calls the model with a timeout,
// and optionally writes the answer to a file without ever overwriting one. The client in package
// consult/openai (openai.New) speaks the OpenAI-compatible chat-completions protocol with streaming, so a
// timeout keeps the partial answer (marked Truncated); provider errors carry the provider's own
// message. [Consultant.Prepare] does everything but the call, for dry runs.
//
// A conversation that keeps files in context from turn to turn, for a provider's prompt cache,
// is package [github.com/agentfiles/agentfiles/consult/filecontext], which builds on this package's
// token counting.
//
// # Construction
//
// Every configurable type is built by NewX(required..., XOptions) with the options passed by
// value, zero fields meaning the documented defaults: [NewExpander], [NewFormatter],
// [NewConsultant], and openai.New in consult/openai. A built value does not change afterwards.
//
// # Errors
//
// Every error is an *[agentfiles.Error]. The codes only this package produces are declared here
// (CodeMissingExtension, CodeModelError, …, listed with the shared ones by [Codes]); the shared
// ones (NOT_FOUND, IS_DIRECTORY, PERMISSION_DENIED, INVALID_ARGUMENT, TIMEOUT, INTERNAL) are
// agentfiles'. Branch with errors.Is against the Err* sentinels of either package, or with
// [agentfiles.ErrorCode]; never on message text. Messages say what to do next and never contain
// file contents or API keys. An [EntryError] unwraps to its *agentfiles.Error.
//
// # Concurrency
//
// [Expander], [Formatter], [Consultant] and consult/openai's Model are safe for concurrent use.
package consult
