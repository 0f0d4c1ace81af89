// Package consulttools is the consultation tool set: one agent tool, "consultation", that sends
// local files and a question to a language model through a [consult.Consultant].
//
// # Use
//
// Build a Consultant with the models to offer and hand it to [Tools]; serve the result with any
// binding (adapters/mcpsdk, adapters/httpapi), alone or next to other tool sets:
//
//	m, err := openai.New("gpt-4.1-mini", openai.Options{APIKey: key, ContextWindow: 128_000})
//	x, err := consult.NewExpander(consult.ExpanderOptions{Roots: []string{"/home/me/project"}})
//	c := consult.NewConsultant(consult.ConsultantOptions{Expander: x, Models: []consult.Model{m}})
//	tools := consulttools.Tools(c)
//
// A binary that serves only this tool set links package consult and the adapters core, and no
// other agentfiles family.
//
// # The tool
//
// consultation takes files (absolute paths and file-name patterns, see package consult), a
// query, and optionally a model name and an output_file. It answers with the model's answer,
// the files sent (at most 100 listed), the entries and files that were not sent with the rule
// each broke, and the token counts. The tool reads files of the server machine and calls an
// outside provider, so it is marked open-world and not read-only; enable it deliberately, and
// confine it with [consult.ExpanderOptions.Roots] to the directories agents may consult: without
// roots it can send any file the server process can read (OUTSIDE_ROOTS reports the others).
//
// # Errors
//
// Failures are *agentfiles.Error values with consult's codes (CONTEXT_TOO_LARGE when the prompt
// does not fit the model, MODEL_ERROR when the provider fails, NOT_FOUND when no file could be
// used, INVALID_ARGUMENT for an unknown model or a bad argument, …), which the bindings report
// as the agent-facing {code, message, retryable}.
package consulttools
