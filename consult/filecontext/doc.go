// Package filecontext keeps the files of a conversation with a language model in context, in a
// way that keeps the provider's prompt cache warm and the files within a token budget.
//
// # The idea
//
// A provider caches the prefix of a request that did not change since the previous turn. So the
// files a conversation always needs (knowledge files, the initial context: the base files) are
// rendered once into a system prompt whose bytes never change between turns, and every other
// file enters the conversation as the result of a read_files tool call appended at the end. The
// files in context are derived from those results; nothing earlier in the history is edited on
// an ordinary turn.
//
//	fc, err := filecontext.New(ctx, []string{"/repo/README.md"}, filecontext.Options{Instructions: "..."})
//	fc.Append(filecontext.Message{Role: filecontext.RoleUser, Text: question})
//	// the model replies with a read_files tool call:
//	fc.Append(filecontext.Message{Role: filecontext.RoleAssistant, ToolCalls: []filecontext.ToolCall{call}})
//	res, err := fc.AnswerReadFiles(ctx, call) // per file: sent, already_in_context, updated, not_found, ...
//	body := fc.ExportAnthropic()              // system + messages, cache_control on the last block
//
// # The budget
//
// [Options.BudgetTokens] (default 100,000) caps the file content in the conversation: the base
// files in the system prompt plus every content entry of every read_files result. A file read
// again unchanged is not sent again (already_in_context); a changed one is (updated). When a read
// would exceed the budget, every earlier result is reset to path-only entries (truncated: true)
// and files are re-sent in the new result: the requested ones, then earlier ones from the most
// recently requested, up to [Options.RefillPercent] (default 50%) of the room the base files
// leave; the others are reported as dropped. The rest of the budget is headroom: the next turns
// append to it, and the cached prefix survives them, instead of every turn after the first
// overflow resetting again. A file over a per-file gate is too_large, a binary one binary:
// reported, never sent, never cut. No file content is in context twice: Append refuses a result
// that would repeat one (ALREADY_EXISTS), as it refuses a second answer to a tool call.
//
// # What the cache saves
//
// Every export ([Context.ExportAnthropic], [Context.ExportOpenAI]) is taken to be a request, and
// [Context.CacheStats] reports for the last one and in total how many of its tokens repeat the
// start of the previous request — a provider serves those from its cache — and how many are
// new, with a cost estimate at the host's [CachePrices]. A host with its own message list keeps
// a [CacheMeter]. On the workload of BENCHMARKS.md (120 turns, 200 files of 250–3,000 tokens,
// 1–3 a turn), refilling to the brim reset about every other turn and left some 45% of the request
// tokens uncached; the default refill resets about one turn in twenty-five with some 6% uncached.
//
// # Hosts that own their message list
//
// [Context] keeps the history itself. A host that stores its own uses the pure functions behind
// it: [LoadBaseFiles] and [RenderSystemPrompt] for the system prompt, [ReadForContext] to read a
// call's files (or its own reads as [FileRead] values), and [PlanReadFiles], which returns the
// tool result and any edits as a [ReadFilesPlan] whose Apply gives the new history. Messages are
// provider-neutral and JSON-ready ([Message]); tool results stored as JSON text are parsed too
// ([ParseReadFilesResult]).
//
// # Providers
//
// [Context.ExportAnthropic] and [Context.ExportOpenAI] (or [AnthropicFromHistory] and
// [OpenAIFromHistory]) turn the system prompt and the history into the conversation part of an
// Anthropic Messages or OpenAI chat-completions request, with the read_files tool declared and
// the cache breakpoints set. Their types are the providers' wire format, so they live in package
// [github.com/agentfiles/agentfiles/consult/filecontext/chatwire]; embed them in your request struct.
//
// # Tokens and errors
//
// Token counts are [consult.Tokens], counted by a [consult.TokenCounter] (default
// [consult.EstimateCounter], an estimate), so one tokenizer serves this package and package
// consult. Errors are *[agentfiles.Error]: INVALID_ARGUMENT for a malformed request,
// ALREADY_EXISTS for a second answer to a tool call or content that would be in context twice,
// CANCELED or TIMEOUT when the context ends. A file that is not sent has a [FileStatus] for the model and,
// through [ReadFilesFile.Err], the coded error package consult gives the same problem
// (consult.ErrBinaryFile, consult.ErrFileTooLarge, agentfiles.ErrNotFound, …); [Codes] lists
// them all.
//
// # Concurrency
//
// A [Context] is safe for concurrent use. The pure functions are safe for concurrent use when
// the [FileSource] and the TokenCounter are; [Message] and the other result types are plain
// values.
package filecontext
