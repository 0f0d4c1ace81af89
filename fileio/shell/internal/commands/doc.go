// Package commands holds the Go implementations of the commands file_shell offers (cat, sed,
// rg, find, …) and the contract between them and the shell that runs them.
//
// A command sees the project only through an Env: its working directory, its standard
// streams, and FS, the project's files as the running shell command sees them (one snapshot
// of the project plus the command line's own writes so far). It never touches the host: no
// os package file access, no environment variables, no network, no processes.
//
// # Rules every command follows
//
//   - Paths in FS are absolute project paths: "/" is the project root, "/a/b.txt" a file.
//     Resolve operands against Env.Dir with Env.Abs, and print them as the user typed them
//     (as GNU tools do).
//   - Output and diagnostics are GNU's for the flags agents use, byte for byte with
//     LC_ALL=C: the oracle is the Debian package of the same tool run on a disk copy of the
//     tree. Diagnostics start with the command's name ("cat: x: No such file or directory").
//   - A write to Stdout or Stderr that fails (the reader of a pipe went away, the output cap
//     was reached) ends the command: return at once with a non-zero status, as SIGPIPE would.
//   - Loops check ctx (ctx.Err() != nil: return 130, quietly) at least once per file and per
//     few thousand lines, so a timeout or a caller that leaves stops every command promptly.
//   - The return value is the exit status (0 success, 1 "false"/"no match"/difference,
//     2 usage error for grep/diff, as GNU).
//
// # What exists
//
// Files and text: cat (-n -b -s -A -E -T -v), head and tail (-n -c, -N, tail -n +N, ==> f <==
// headers), wc (-l -w -c -m -L and GNU's column widths), nl (-b a|t|n -w -s -v -i -n), sort
// (-u -n -g -h -V -M -r -f -d -b -k -t -s -o -c), uniq (-c -d -D -u -i -f -s -w), cut (-b -c
// -f -d -s --complement --output-delimiter), tr (sets, ranges, classes, [c*n], -c -d -s -t),
// tac, rev, paste (-d -s), comm (-1 -2 -3), expand (-t -i), fold (-w -s -b), seq (-s -w
// -f), basename, dirname, sha256sum (and -c), tee (-a), yes, sleep (bounded by ctx).
//
// Search and edit: grep (BRE by default, -E -F -P, -r -n -c -i -v -w -x -o -q -l -L -h -H -A
// -B -C -m -a -I --include --exclude --exclude-dir), rg (see below), sed (-n -e -f -E -i[SUF]
// -s; {} p P d D s y a i c q Q = l n N g G h H x b t T : r R w W z F; line, $, /re/, \cREc,
// first~step, addr,+N, addr,~N and 0,/re/ addresses and ranges, ! negation, several -e and ;
// separated scripts), awk (goawk: -F -v -f), jq (gojq: -r -j -c -n -s -e -S -R -a --tab
// --indent --arg --argjson --rawfile --slurpfile --args --jsonargs), diff (normal and -u/-U formats, -q -s -r -N -i
// -w -b --label), apply_patch (Codex's, on the file_apply_patch engine).
//
// The tree: ls (-a -A -1 -d -R -l -h -t -S -r -U -F -p), tree (the Debian package's output),
// find (-name -iname -path -ipath -regex -type -maxdepth -mindepth -prune -print -print0
// -printf -empty -newer -size -mtime -mmin -delete -quit, ! -not -a -o , ( ), -exec … ; and
// {} + through Env.Exec), stat (-c/--printf), realpath, mkdir (-p -v), touch (-c -d -r -t),
// rm (-r -f -d -v), cp (-r -a -p -n -v -t -T), mv (-n -v -t -T), xargs (-0 -d -n -L -I -r -t
// -a -E -s, through Env.Exec).
//
// Builtins of the interpreter (echo, printf, test, [, cd, pwd, read, …) are not here; names
// without an entry are the shell's to refuse (exit 127).
//
// # GNU compatibility
//
// The differential suites (TestDiff*, package difftest) run each command line through these
// commands on an in-memory tree and through the Debian tool (coreutils, grep, sed,
// findutils, diffutils, ripgrep, jq, tree, original-awk) on a disk copy with LC_ALL=C and
// compare standard output, the exit status, standard error (exactly where GNU's text is
// stable) and the files left behind. Regular expressions are translated to RE2 (package
// posixre): matching is linear in the input, and backreferences are refused with a message
// (grep and sed exit 2 and 1).
//
// # ripgrep
//
// rg prints what ripgrep prints when its standard output is not a terminal (path:line:text
// with -n, no heading, names when it searches a directory or several files) and honours its
// defaults: hidden files and directories skipped, files with a NUL byte skipped (reported when
// named on the command line), .ignore and .rgignore everywhere, .gitignore only inside a git
// repository (a .git at or above), the ignore files of the directories above the one searched
// too, -g globs overriding ignore files. ripgrep prints files in the order its threads finish;
// this rg always prints in --sort path order, and the suite compares with rg --sort path. When
// Env.Search is set, rg and grep -r read only the files the project's grep engine names as
// candidates.
//
// # What differs, and why
//
//   - Directory order: GNU grep -r, find and cp -r walk directories in the order the disk
//     lists them; these commands walk in bytewise name order (a project has no other).
//   - Character semantics: Go matches UTF-8 runes where LC_ALL=C matches bytes ("." matches
//     "é" as one character), and grep -i / sed I fold non-ASCII letters (C folds ASCII only).
//     \< and \> both become \b.
//   - Owners and modes: a project's files have none; ls -l, stat and find -printf show owner
//     and group "root", mode 0644 for files and 0755 for directories, a directory size of
//     4096, and blocks as a disk of 4 KiB blocks would use.
//   - realpath answers project paths ("/" is the project root).
//   - jq is gojq: object keys print sorted (jq keeps the input's order), there is no
//     environment ($ENV and env are empty) and no modules; numbers print as jq 1.6 prints
//     them.
//   - awk is goawk: printf's %g without a precision prints the shortest form, records lose
//     the \r of CRLF lines, and the program cannot write files (print > "/dev/stderr"
//     included), read files with getline, open pipes or call system() (each is refused with
//     goawk's message); FILENAME is the operand's name ("-" for standard input).
//   - sed -z, grep -z, sort -z and the other NUL-separated line modes are refused; tail -f
//     is refused (a command sees one snapshot); diff -c (the context format) is refused.
//   - diff finds its changes as GNU diff does (lines that match nothing set aside, the
//     middle-snake search, runs of changes slid to GNU's boundaries), so where several
//     shortest edit scripts exist it prints GNU's; past GNU's own cost bound it settles for a
//     longer one, as GNU does.
//
// # Bounds
//
// A command reads no more than it needs: head, sed, grep, rg, awk, cut, tr, uniq, nl, wc,
// cat, tee and sha256sum take standard input as it comes, and grep -q/-l/-m, rg -q/-l/-m,
// head, sed's q (and sed -n with line addresses only) stop reading once their answer is
// known; a pipe's reader going away ends the writer. Standard input is read whole only where
// the answer needs all of it (sort, tail, tac, diff, paste, comm, xargs, jq -s), and then at
// most 256 MiB. Loops check ctx. Regular expressions are RE2.
package commands
