package commands_test

import (
	"context"
	"fmt"
	"os"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/commands"
	"github.com/agentfiles/agentfiles/fileio/shell/internal/memfs"
)

// Running one command on a project's files: the shell does this for every simple command of
// a command line, with the project at one snapshot as FS.
func ExampleLookup() {
	fsys := memfs.New(map[string]memfs.File{
		"/src/main.go": {Data: "package main\n\nfunc main() {\n\t// TODO: flags\n}\n"},
		"/README.md":   {Data: "# demo\nTODO: docs\n"},
	})
	env := &commands.Env{Dir: "/", Stdout: os.Stdout, Stderr: os.Stdout, FS: fsys}
	ctx := context.Background()

	status := commands.Lookup("rg")(ctx, env, []string{"rg", "-n", "TODO"})
	fmt.Println("exit", status)
	commands.Lookup("sed")(ctx, env, []string{"sed", "-n", "3,4p", "src/main.go"})
	fmt.Println(commands.Lookup("curl") == nil) // nothing reaches the host
	// Output:
	// README.md:2:TODO: docs
	// src/main.go:4:	// TODO: flags
	// exit 0
	// func main() {
	// 	// TODO: flags
	// true
}
