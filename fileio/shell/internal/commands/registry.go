package commands

import (
	"context"
	"sort"
)

// registry maps a command name to its implementation. Names that are bash builtins in
// mvdan.cc/sh's interpreter (echo, printf, test, [, true, false, cd, pwd, read, …) are run by
// the interpreter and need no entry.
var registry = map[string]Func{
	"true":        func(context.Context, *Env, []string) int { return 0 },
	"false":       func(context.Context, *Env, []string) int { return 1 },
	"apply_patch": runApplyPatch,
	"awk":         runAwk,
	"basename":    runBasename,
	"cat":         runCat,
	"cp":          runCp,
	"cut":         runCut,
	"diff":        runDiff,
	"dirname":     runDirname,
	"egrep":       runEgrep,
	"fgrep":       runFgrep,
	"find":        runFind,
	"grep":        runGrep,
	"head":        runHead,
	"jq":          runJq,
	"ls":          runLs,
	"mkdir":       runMkdir,
	"mv":          runMv,
	"nl":          runNl,
	"rg":          runRg,
	"rm":          runRm,
	"sed":         runSed,
	"seq":         runSeq,
	"sha256sum":   runSha256sum,
	"sleep":       runSleep,
	"sort":        runSort,
	"tail":        runTail,
	"tee":         runTee,
	"touch":       runTouch,
	"tr":          runTr,
	"tree":        runTree,
	"uniq":        runUniq,
	"wc":          runWc,
	"xargs":       runXargs,
	"comm":        runComm,
	"paste":       runPaste,
	"realpath":    runRealpath,
	"rev":         runRev,
	"stat":        runStat,
	"tac":         runTac,
	"expand":      runExpand,
	"fold":        runFold,
	"yes":         runYes,
}

// Lookup returns the command named name, or nil when file_shell offers none by that name.
func Lookup(name string) Func { return registry[name] }

// Names returns the names of the commands, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
