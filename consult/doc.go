// Package consult sends a set of local files and a question to a language model, and keeps a
// conversation's file context stable for prompt caching.
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
// [Expand] validates and expands it. The rules, each with its own error code:
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
// paths. Results are sorted and de-duplicated; each bad entry yields an [EntryError] and the
// others go on.
//
// # Prompts and limits
//
// [Formatter] reads the files and assembles one prompt: a header with the file count, bytes and
// tokens, a listing grouped by directory, one "File: <path>" block per file (fenced so that file
// contents cannot close the block), and the problems. [Limits] caps each file and the total in
// bytes and in tokens; a file over a limit is left out and reported with its size, never cut.
// Binary and non-UTF-8 files are reported, not sent. Tokens are counted by a [TokenCounter];
// the default [EstimateCounter] is an estimate and the prompt says so.
//
// # Consulting a model
//
// [Consult] (or [Consultant.Consult] with a fixed configuration) expands, formats, checks the
// prompt against the [Model]'s context window before sending anything (CONTEXT_TOO_LARGE with
// the numbers and the largest files), calls the model with a timeout, and optionally writes the
// answer to a file without ever overwriting one. [OpenAIModel] speaks the OpenAI-compatible
// chat-completions protocol with streaming, so a timeout keeps the partial answer (marked
// Truncated); provider errors carry the provider's own message. [Consultant.Prepare] does
// everything but the call, for dry runs.
//
// # File context
//
// [FileContext] (see [NewFileContext]) keeps a conversation's files in a system prompt that stays
// byte-identical from turn to turn, so a provider's prompt cache stays warm, and brings further
// files in as read_files tool results under a token budget.
//
// # Errors
//
// Every error is an [*Error] with a stable code (the Code* constants). Branch with errors.Is
// against the Err* sentinels, or errors.As and Code(); never on message text. Messages say what
// to do next and never contain file contents or API keys.
//
// # Concurrency
//
// [Expander], [Formatter], [Consultant] and [OpenAIModel] are safe for concurrent use once
// configured.
package consult
