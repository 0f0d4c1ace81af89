package fileiotools

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/shell"
	"github.com/google/jsonschema-go/jsonschema"
)

type fileShellIn struct {
	projectArg
	// Command is bash text or an argv list; its schema is set in shellTool.
	Command   any    `json:"command"`
	Workdir   string `json:"workdir,omitempty" jsonschema:"project directory the command starts in, e.g. '/src'; default '/' (the project root)"`
	TimeoutMS int64  `json:"timeout_ms,omitempty" jsonschema:"the command's time budget in milliseconds; the default and the maximum are in the tool description"`
}

// commandOf reads the command argument: bash text, or an argv list such as
// ["bash", "-lc", "…"] (Codex's form).
func commandOf(v any) (text string, argv []string, err error) {
	bad := agentfiles.NewError(agentfiles.CodeInvalidArgument,
		"command must be bash text such as \"ls -la\", or a list such as [\"bash\", \"-lc\", \"ls -la\"]", "command")
	switch c := v.(type) {
	case string:
		return c, nil, nil
	case []any:
		for _, a := range c {
			s, ok := a.(string)
			if !ok {
				return "", nil, bad
			}
			argv = append(argv, s)
		}
		if len(argv) == 0 {
			return "", nil, bad
		}
		return "", argv, nil
	}
	return "", nil, bad
}

// shellTool is file_shell over svc.
func shellTool(svc *fileio.Service, cfg fileio.Config) adapters.Tool {
	sh := shell.New(svc, shell.Options{})
	tool := adapters.NewTool("file_shell", "Run a shell command on a project",
		"Runs bash on a project's files, as in a terminal whose root '/' is the project: read with cat, sed -n '1,200p' f, "+
			"nl -ba f, head, tail; search with rg -n (an index makes it fast), grep -rn, find, rg --files; write with "+
			"heredocs (cat > f <<'EOF'), sed -i, tee, apply_patch <<'EOF' (the V4A patch format); and pipe through sort, uniq, "+
			"cut, tr, wc, awk, jq, xargs, diff, sha256sum. Pipes, &&, ||, redirections (2>&1, 2>/dev/null), $(...), <(...), "+
			"variables, loops, functions and globbing work as in bash. The commands are Go implementations with GNU's output "+
			"for common flags; anything else (python, git, curl, npm, ...) exits 127 'command not found': there is no host, "+
			"network or environment behind it. One call is one transaction: the command reads the project as it was when it "+
			"started and its writes are committed together when it ends, whatever its exit status, each changed file getting "+
			"a version (file_versions, checkpoints and file_rewind see the command as one step); if another writer changed a "+
			"file it read or wrote meanwhile, nothing is written and the error is CONFLICT: run it again. Empty directories "+
			"are not kept after the command. Returns {stdout, stderr, exit_code, truncated, note, created, modified, deleted}. "+
			"Limits per call: "+(cfg.ShellTimeout).String()+" by default (timeout_ms, at most "+cfg.ShellMaxTimeout.String()+
			"; past it TIMEOUT and nothing is written), "+sizeText(cfg.ShellMaxOutputBytes)+" of stdout and stderr as sent (then "+
			"truncated=true with a note, and further output fails), "+sizeText(cfg.ShellMaxWriteBytes)+" written to files "+
			"(past it QUOTA_EXCEEDED and nothing is written), "+fmt.Sprint(cfg.ShellMaxSteps)+" simple commands and "+
			fmt.Sprint(cfg.ShellMaxPipes)+" open pipes (past them INVALID_ARGUMENT), and the project's size quota. Examples: "+
			"{\"project\": \"demo\", \"command\": \"rg -n TODO src | head -20\"}, {\"project\": \"demo\", \"command\": [\"bash\", \"-lc\", "+
			"\"sed -n '1,80p' README.md\"]}, {\"project\": \"demo\", \"command\": \"cat > notes.md <<'EOF'\\n# Notes\\nEOF\", \"workdir\": \"/docs\"}.",
		adapters.Annotations{Destructive: true},
		func(ctx context.Context, in fileShellIn) (shell.Result, error) {
			text, argv, err := commandOf(in.Command)
			if err != nil {
				return shell.Result{}, err
			}
			if in.TimeoutMS < 0 {
				return shell.Result{}, agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf("timeout_ms must be >= 0 (0: the default %d), got %d", cfg.ShellTimeout.Milliseconds(), in.TimeoutMS), "timeout_ms")
			}
			return sh.Run(ctx, shell.Request{Project: in.Project, Command: text, Argv: argv, Workdir: in.Workdir,
				Timeout: time.Duration(in.TimeoutMS) * time.Millisecond})
		})
	// The schema advertised says what command takes (text or a list of strings); the handler's
	// validation (against the schema NewTool made, where command is any value) is left as is,
	// and commandOf checks the form.
	advertised := *tool.InputSchema
	advertised.Properties = maps.Clone(advertised.Properties)
	advertised.Properties["command"] = &jsonschema.Schema{
		Description: "the command: bash text such as \"rg -n TODO | head\" (a whole script with newlines is fine), or an argv list " +
			"running bash, such as [\"bash\", \"-lc\", \"ls -la\"]",
		AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "array", Items: &jsonschema.Schema{Type: "string"}}},
	}
	if !slices.Contains(advertised.Required, "command") {
		advertised.Required = append(slices.Clone(advertised.Required), "command")
	}
	tool.InputSchema = &advertised
	tool.RedactArgs = []string{"command"} // heredocs carry file content
	return tool
}
