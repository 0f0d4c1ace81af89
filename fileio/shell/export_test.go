package shell

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/commands"
)

// testCommands stand in for commands the registry does not have yet, so that the wiring can be
// tested before they land: each is used only while commands.Lookup has no command of its name.
var testCommands = map[string]commands.Func{
	// search-read DIR WORD reads every candidate of WORD below DIR in order, as rg does, and
	// prints how many files and bytes it read and how many held WORD.
	"search-read": func(ctx context.Context, env *commands.Env, args []string) int {
		paths, complete, err := env.Search.Candidates(ctx, env.Abs(args[1]), args[2], false)
		if err != nil || !complete {
			fmt.Fprintln(env.Stderr, err, complete)
			return 2
		}
		files, bytes, hits := 0, 0, 0
		for _, p := range paths {
			data, err := env.FS.ReadFile(ctx, p)
			if err != nil {
				fmt.Fprintln(env.Stderr, err)
				return 2
			}
			files++
			bytes += len(data)
			if strings.Contains(string(data), args[2]) {
				hits++
			}
		}
		fmt.Fprintln(env.Stdout, files, bytes, hits)
		return 0
	},
	// hook runs Hook: a test's way to act while a command runs.
	"hook": func(ctx context.Context, env *commands.Env, args []string) int {
		Hook()
		return 0
	},
	// candidates DIR RE prints what the Searcher returns.
	"candidates": func(ctx context.Context, env *commands.Env, args []string) int {
		paths, complete, err := env.Search.Candidates(ctx, env.Abs(args[1]), args[2], false)
		if err != nil {
			fmt.Fprintln(env.Stderr, err)
			return 2
		}
		for _, p := range paths {
			fmt.Fprintln(env.Stdout, p)
		}
		fmt.Fprintln(env.Stdout, "complete:", complete)
		return 0
	},
	"cat": func(ctx context.Context, env *commands.Env, args []string) int {
		if len(args) == 1 {
			if env.Stdin != nil {
				io.Copy(env.Stdout, env.Stdin)
			}
			return 0
		}
		status := 0
		for _, a := range args[1:] {
			if a == "-" {
				if env.Stdin != nil {
					io.Copy(env.Stdout, env.Stdin)
				}
				continue
			}
			data, err := env.FS.ReadFile(ctx, env.Abs(a))
			if err != nil {
				fmt.Fprintf(env.Stderr, "cat: %s: %s\n", a, errText(err))
				status = 1
				continue
			}
			if _, err := env.Stdout.Write(data); err != nil {
				return 1
			}
		}
		return status
	},
	"yes": func(ctx context.Context, env *commands.Env, args []string) int {
		line := []byte("y\n")
		if len(args) > 1 {
			line = []byte(args[1] + "\n")
		}
		buf := make([]byte, 0, 8192)
		for len(buf)+len(line) <= cap(buf) {
			buf = append(buf, line...)
		}
		for ctx.Err() == nil {
			if _, err := env.Stdout.Write(buf); err != nil {
				return 1
			}
		}
		return 130
	},
	"mkdir": func(ctx context.Context, env *commands.Env, args []string) int {
		parents := false
		for _, a := range args[1:] {
			if a == "-p" {
				parents = true
				continue
			}
			if err := env.FS.Mkdir(ctx, env.Abs(a), parents); err != nil {
				fmt.Fprintf(env.Stderr, "mkdir: cannot create directory '%s': %s\n", a, errText(err))
				return 1
			}
		}
		return 0
	},
	"rm": func(ctx context.Context, env *commands.Env, args []string) int {
		recursive := false
		for _, a := range args[1:] {
			if a == "-rf" || a == "-r" {
				recursive = true
				continue
			}
			if err := env.FS.Remove(ctx, env.Abs(a), recursive); err != nil {
				fmt.Fprintf(env.Stderr, "rm: cannot remove '%s': %s\n", a, errText(err))
				return 1
			}
		}
		return 0
	},
	"ls": func(ctx context.Context, env *commands.Env, args []string) int {
		dir := "."
		if len(args) > 1 {
			dir = args[1]
		}
		entries, err := env.FS.ReadDir(ctx, env.Abs(dir))
		if err != nil {
			fmt.Fprintf(env.Stderr, "ls: cannot access '%s': %s\n", dir, errText(err))
			return 2
		}
		for _, e := range entries {
			fmt.Fprintln(env.Stdout, e.Name())
		}
		return 0
	},
	"xargs": func(ctx context.Context, env *commands.Env, args []string) int {
		var data []byte
		if env.Stdin != nil {
			data, _ = io.ReadAll(env.Stdin)
		}
		words := splitFields(string(data))
		return env.Exec(ctx, append(append([]string{}, args[1:]...), words...), env.Stdin, env.Stdout, env.Stderr)
	},
}

// Hook is what the hook command runs.
var Hook = func() {}

func splitFields(s string) []string {
	var out []string
	field := ""
	for _, c := range s {
		if c == ' ' || c == '\n' || c == '\t' {
			if field != "" {
				out = append(out, field)
			}
			field = ""
			continue
		}
		field += string(c)
	}
	if field != "" {
		out = append(out, field)
	}
	return out
}

func init() {
	real := lookupCommand
	lookupCommand = func(name string) commands.Func {
		if f := real(name); f != nil {
			return f
		}
		return testCommands[name]
	}
}
