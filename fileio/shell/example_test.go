package shell_test

import (
	"context"
	"fmt"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/shell"
)

// A command reads and writes a project as a terminal would; what it wrote is committed in one
// transaction when it ends.
func ExampleShell_Run() {
	svc, _ := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/notes/todo.md", Content: "- milk\n- bread\n"})

	sh := shell.New(svc, shell.Options{})
	res, err := sh.Run(ctx, shell.Request{Project: "demo", Command: `cd notes
n=0; while read -r item; do n=$((n+1)); done < todo.md
echo "$n items"
echo "- eggs" >> todo.md
nosuchtool --version`})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("stdout: %q\nstderr: %q\nexit: %d\nmodified: %v\n", res.Stdout, res.Stderr, res.ExitCode, res.Modified)
	read, _ := svc.Read(ctx, fileio.ReadRequest{Project: "demo", Path: "/notes/todo.md"})
	fmt.Print(read.Content)
	// Output:
	// stdout: "2 items\n"
	// stderr: "bash: line 5: nosuchtool: command not found\n"
	// exit: 127
	// modified: [/notes/todo.md]
	// - milk
	// - bread
	// - eggs
}

// Codex sends its commands as an argv list.
func ExampleScriptOf() {
	text, err := shell.ScriptOf([]string{"bash", "-lc", "sed -n '1,200p' README.md"})
	fmt.Println(text, err)
	_, err = shell.ScriptOf([]string{"python3", "-c", "print(1)"})
	fmt.Println(agentfiles.ErrorCode(err))
	// Output:
	// sed -n '1,200p' README.md <nil>
	// INVALID_ARGUMENT
}
