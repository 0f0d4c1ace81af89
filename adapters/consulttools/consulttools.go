package consulttools

import (
	"context"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/consult"
)

// consultationInput is the argument object of the consultation tool.
type consultationInput struct {
	Files      []string `json:"files" jsonschema:"absolute file paths and file-name patterns, e.g. [\"/home/me/project/src/*.py\", \"/home/me/project/README.md\"]; wildcards *, ? and [...] only in the file name, and a pattern must end in an extension such as .py"`
	Query      string   `json:"query" jsonschema:"the question to answer about the files"`
	Model      string   `json:"model,omitempty" jsonschema:"name of one of the models configured on this server; omit for the default"`
	OutputFile string   `json:"output_file,omitempty" jsonschema:"absolute path of a file to receive the answer instead of returning it; an existing file is never overwritten (the answer goes to name_updated.ext)"`
}

// consultationOutput is the result of the consultation tool.
type consultationOutput struct {
	Answer         string                `json:"answer,omitempty" jsonschema:"the model's answer; omitted when it was written to output_file"`
	Model          string                `json:"model" jsonschema:"the model that answered"`
	Truncated      bool                  `json:"truncated" jsonschema:"true when the answer is incomplete; note says why"`
	Note           string                `json:"note,omitempty" jsonschema:"why the answer is truncated, where it was written, or what was adjusted"`
	OutputFile     string                `json:"output_file,omitempty" jsonschema:"the file that received the answer"`
	FileCount      int                   `json:"file_count" jsonschema:"number of files sent to the model"`
	Files          []consultedFile       `json:"files" jsonschema:"the files sent, at most 100 listed"`
	FilesTruncated bool                  `json:"files_truncated,omitempty" jsonschema:"true when more files were sent than are listed"`
	Problems       []consultationProblem `json:"problems,omitempty" jsonschema:"entries and files that were not sent, each with the rule it broke"`
	PromptTokens   int64                 `json:"prompt_tokens" jsonschema:"prompt size counted before sending (an estimate unless the server has a tokenizer)"`
	Usage          consult.Usage         `json:"usage" jsonschema:"token usage reported by the model provider"`
}

// consultedFile is one file sent to the model.
type consultedFile struct {
	Path      string `json:"path"`
	SizeBytes int64  `json:"size_bytes"`
}

// consultationProblem is one entry or file that was not sent.
type consultationProblem struct {
	Entry   string `json:"entry" jsonschema:"the files entry as given"`
	Path    string `json:"path,omitempty" jsonschema:"the file concerned, when the entry is a pattern"`
	Code    string `json:"code" jsonschema:"machine-stable code, e.g. MISSING_EXTENSION, NOT_FOUND, BINARY_FILE"`
	Message string `json:"message" jsonschema:"the rule that was broken and what to do"`
}

// maxListedFiles caps the file list in a consultation result.
const maxListedFiles = 100

// description is the consultation tool's description, before the list of models.
const description = `Ask a language model a question about a set of local files. The files are read on the server, assembled into one prompt with a listing, and sent with your query; the answer comes back (or goes to output_file).

Use it to get a second opinion or an analysis over many files at once: architecture reviews, finding bugs or TODOs, explaining code, comparing documents.

files is a list of absolute paths and patterns:
- a plain path names one file: "/home/me/project/README.md"
- wildcards *, ? and [...] are allowed ONLY in the file name (the last path element) and match one directory, not its subdirectories: "/home/me/project/src/*.py", "/home/me/project/tests/*_test.go", "/home/me/project/[ab]*.md"
- a pattern must end in a literal extension: "*.py" yes, "*" and "data.*" no
- names starting with "." match only a pattern starting with ".": ".*.yml"
- list each directory you need separately; mix files and patterns freely; duplicates are removed
Rejected: "/home/**/*.py" (no recursive **), "/home/*/project/*.py" (no wildcards in directories), "/home/project/*" (no extension), "src/*.py" (not absolute), "/home/project/src" (a directory: use "/home/project/src/*.py").
.git, node_modules, __pycache__, .venv, .env, secrets.* and similar are never sent. Binary files and files over the size limits are reported in problems, never cut. Bad entries are reported in problems while the others are used.`

// Tools returns the consultation tool set: one tool, "consultation", that sends files and a
// question to a model configured on c (see [consult.ConsultantOptions.Models]); its description
// lists the models. The API key is part of c's models (the operator's or the caller's key); it is
// never a tool argument. Errors carry consult's codes (MISSING_EXTENSION, CONTEXT_TOO_LARGE,
// MODEL_ERROR, …; see [consult.Codes]); entries that could not be used are listed in the
// result's problems while the others are sent.
//
// The tool reads the files an agent names with the server's permissions, so build c with an
// Expander confined to the directories agents may consult ([consult.ExpanderOptions.Roots]); the
// description then lists them. Without roots any file the server can read may be sent to the
// model.
//
// c must not be nil and should offer at least one model: without one every call fails with
// INVALID_ARGUMENT. The tool is safe for concurrent use, as the Consultant is.
func Tools(c *consult.Consultant) []adapters.Tool {
	if c == nil {
		panic("consulttools.Tools: nil *consult.Consultant")
	}
	desc := description
	if roots := c.Roots(); len(roots) > 0 {
		desc += "\n\nOnly files inside these directories can be sent: " + strings.Join(roots, ", ") +
			". A path outside them, or one that leads out of them through a symbolic link, is reported as OUTSIDE_ROOTS."
	}
	if models := c.Models(); len(models) > 0 {
		names := make([]string, len(models))
		for i, m := range models {
			names[i] = m.Name()
		}
		desc += "\n\nModels: " + strings.Join(names, ", ") + " (default " + names[0] + ")."
	}
	return []adapters.Tool{adapters.NewTool("consultation", "Consult a model about files", desc,
		adapters.Annotations{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true},
		func(ctx context.Context, in consultationInput) (consultationOutput, error) {
			m, err := c.Model(in.Model)
			if err != nil {
				return consultationOutput{}, err
			}
			resp, err := c.Consult(ctx, consult.Request{Files: in.Files, Query: in.Query, Model: m, OutputFile: in.OutputFile})
			if err != nil {
				return consultationOutput{}, err
			}
			return newOutput(resp), nil
		})}
}

// newOutput is the tool result of a consultation.
func newOutput(resp *consult.Response) consultationOutput {
	out := consultationOutput{
		Answer: resp.Answer, Model: resp.Model, Truncated: resp.Truncated, Note: resp.Note,
		OutputFile: resp.OutputFile, FileCount: len(resp.Files), Files: []consultedFile{},
		PromptTokens: int64(resp.PromptTokens), Usage: resp.Usage,
	}
	if resp.OutputFile != "" {
		out.Answer = ""
		written := "the answer (" + strconv.Itoa(len(resp.Answer)) + " bytes) was written to " + resp.OutputFile
		if out.Note == "" {
			out.Note = written
		} else {
			out.Note = written + "; " + out.Note
		}
	}
	for i, f := range resp.Files {
		if i == maxListedFiles {
			out.FilesTruncated = true
			break
		}
		out.Files = append(out.Files, consultedFile{Path: f.Path, SizeBytes: f.SizeBytes})
	}
	for _, e := range resp.Errors {
		out.Problems = append(out.Problems, consultationProblem{Entry: e.Entry, Path: e.Path, Code: e.Err.Code.String(), Message: e.Err.Message})
	}
	return out
}
