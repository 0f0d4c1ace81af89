package memorytools

import (
	"context"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/fileio/memorytool"
	"github.com/google/jsonschema-go/jsonschema"
)

// Name is the tool's name, the one Anthropic's memory tool has.
const Name = "memory"

// Output is the result of the memory tool: the text of the command's documented result. MCP
// clients get it as the text content, unchanged (see adapters.Texter); structured content and
// HTTP get {"result": text}.
type Output struct {
	Result string `json:"result" jsonschema:"the memory tool's result text"`
}

// ToolText returns the result text, for bindings that answer in text.
func (o Output) ToolText() string { return o.Result }

// Tools returns the tool "memory" over mem. Its input is exactly the input of Anthropic's memory
// tool (see memorytool.Input); its result is the documented text; its errors carry the documented
// error text as their message. The caller's identity must be in the context (the bindings put
// it there). file_text, old_str, new_str and insert_text are never logged by the bindings.
//
// mem must not be nil. The tool is safe for concurrent use, as the memorytool.Tool is.
func Tools(mem *memorytool.Tool) []adapters.Tool {
	if mem == nil {
		panic("memorytools.Tools: nil *memorytool.Tool")
	}
	tool := adapters.NewTool(Name, "Memory",
		"A persistent memory directory, /memories, kept across conversations: check it before starting a task "+
			"and record progress, decisions and what you learn as you go. Commands: view (a directory two levels "+
			"deep with sizes, or a file with line numbers; view_range [start, end] picks lines, end -1 to the end), "+
			"create (a new file with file_text; an existing file is an error), str_replace (old_str must occur exactly "+
			"once; new_str replaces it), insert (insert_text after line insert_line, 0 = at the top), delete (a file "+
			"or a directory with everything in it), rename (old_path to new_path, which must not exist). Every path "+
			"starts with /memories; names may hold spaces and non-ASCII letters but no %, backslash or control characters. Example: {\"command\": \"view\", \"path\": "+
			"\"/memories\"}.",
		adapters.Annotations{Destructive: true},
		func(ctx context.Context, in memorytool.Input) (Output, error) {
			text, err := mem.Run(ctx, in)
			if err != nil {
				return Output{}, err
			}
			return Output{Result: text}, nil
		})
	tightenSchema(tool.InputSchema)
	tool.RedactArgs = []string{"file_text", "old_str", "new_str", "insert_text"}
	return []adapters.Tool{tool}
}

// tightenSchema states in the schema what the descriptions say: the commands as an enum,
// view_range as two integers, insert_line as an integer.
func tightenSchema(s *jsonschema.Schema) {
	commands := make([]any, 0, len(memorytool.Commands()))
	for _, c := range memorytool.Commands() {
		commands = append(commands, c)
	}
	s.Properties["command"].Enum = commands
	two := 2
	vr := s.Properties["view_range"]
	vr.Type, vr.Types = "array", nil
	vr.MinItems, vr.MaxItems = &two, &two
	il := s.Properties["insert_line"]
	il.Type, il.Types = "integer", nil
}
