package commands_test

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/difftest"
	"github.com/agentfiles/agentfiles/fileio/shell/internal/memfs"
)

// seed is def, or AGENTFILES_DIFF_SEED when set (to explore beyond the fixed cases).
func seed(def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv("AGENTFILES_DIFF_SEED"), 10, 64); err == nil {
		return v
	}
	return def
}

// randomPattern builds a pattern from pieces of BRE or ERE syntax over a small alphabet, so
// generated patterns combine anchors, brackets, groups, alternatives and repetitions. A
// repetition only follows something to repeat: what GNU does with one at the start of an
// expression, a group or an alternative differs between grep and sed and from POSIX (see
// TestTranslateErrors), and \< \> are \b here (see the package doc).
func randomPattern(r *rand.Rand, ere bool) string {
	atoms := []string{"a", "b", "o", "f", ".", "x", "[ab]", "[^a]", "[[:alpha:]]", "[o-z]", `\.`, " ", "_", "-", "}", `\w`, `\bf`}
	quants := []string{`*`, `\+`, `\?`, `\{1,2\}`}
	open, close, alt := `\(`, `\)`, `\|`
	if ere {
		atoms = append(atoms, `\+`, `\?`, `\*`)
		quants = []string{"*", "+", "?", "{1,2}"}
		open, close, alt = "(", ")", "|"
	} else {
		atoms = append(atoms, "+", "?", "(", ")", "|")
	}
	var sb strings.Builder
	if r.Intn(4) == 0 {
		sb.WriteString("^")
	}
	depth := 0
	canRepeat := false
	for n := 1 + r.Intn(6); n > 0; n-- {
		switch k := r.Intn(10); {
		case k < 2 && canRepeat:
			sb.WriteString(quants[r.Intn(len(quants))])
			canRepeat = false
		case k == 2:
			sb.WriteString(open)
			depth++
			canRepeat = false
			sb.WriteString(atoms[r.Intn(len(atoms))])
			canRepeat = true
		case k == 3 && depth > 0:
			sb.WriteString(close)
			depth--
			canRepeat = true
		case k == 4:
			sb.WriteString(alt)
			sb.WriteString(atoms[r.Intn(len(atoms))])
			canRepeat = true
		default:
			sb.WriteString(atoms[r.Intn(len(atoms))])
			canRepeat = true
		}
	}
	for ; depth > 0; depth-- {
		sb.WriteString(close)
	}
	if r.Intn(4) == 0 {
		sb.WriteString("$")
	}
	return sb.String()
}

// TestDiffRandomPatterns: grep -o, grep -c and sed s///g with generated patterns answer as
// GNU grep and sed do (a fixed seed; AGENTFILES_FULL=1 tries ten times as many).
func TestDiffRandomPatterns(t *testing.T) {
	t.Parallel()
	n := 60
	if os.Getenv("AGENTFILES_FULL") == "1" {
		n = 600
	}
	r := rand.New(rand.NewSource(seed(43)))
	var cases []difftest.Case
	seen := map[string]bool{}
	for len(cases) < n {
		ere := r.Intn(2) == 0
		p := randomPattern(r, ere)
		flag := "-G"
		if ere {
			flag = "-E"
		}
		var c difftest.Case
		switch r.Intn(3) {
		case 0:
			c = difftest.Case{Args: []string{"grep", flag, "-o", "-n", "-e", p, "mixed.txt", "b.txt"}}
		case 1:
			c = difftest.Case{Args: []string{"grep", flag, "-c", "-e", p, "mixed.txt", "a.txt"}}
		default:
			args := []string{"sed", "s/" + strings.ReplaceAll(p, "/", `\/`) + "/<&>/g", "mixed.txt"}
			if ere {
				args = append([]string{"sed", "-E"}, args[1:]...)
			}
			c = difftest.Case{Args: args}
		}
		name := strings.Join(c.Args, " ")
		if seen[name] || strings.Contains(p, `\1`) {
			continue
		}
		seen[name] = true
		cases = append(cases, c)
	}
	difftest.Run(t, difftest.StandardTree(), cases)
}

// randomSedScript builds a sed script of a few commands, each with a random address, range
// or negation.
func randomSedScript(r *rand.Rand) string {
	addrs := []string{"", "", "1", "3", "$", "/a/", "/^[a-e]/", "2,4", "/beta/,/eta/", "3,+2", "0~3", "2~2", "/o/,$", "5,2", "$!"}
	cmds := []string{"p", "d", "s/a/A/", "s/[aeiou]/_/g", "s/\\(.\\)\\(.*\\)/\\2\\1/", "=", "a after", "i before", "c changed",
		"y/abc/xyz/", "q", "N", "P", "h", "H", "g", "G", "x", "n", "l", "s/$/;/", "s/^/> /2", "z"}
	var parts []string
	for n := 1 + r.Intn(3); n > 0; n-- {
		a := addrs[r.Intn(len(addrs))]
		cmd := cmds[r.Intn(len(cmds))]
		if strings.HasSuffix(a, "!") {
			parts = append(parts, a+cmd)
			continue
		}
		if a != "" && r.Intn(5) == 0 {
			a += "!"
		}
		parts = append(parts, a+cmd)
	}
	// a, i and c take the rest of their line: each command gets its own -e. (D is left out:
	// after G it can restart its cycle forever, in GNU sed as here.)
	return strings.Join(parts, "\n")
}

// TestDiffRandomSedScripts: generated sed scripts, with and without -n, answer as GNU sed
// does (a fixed seed; AGENTFILES_FULL=1 tries ten times as many).
func TestDiffRandomSedScripts(t *testing.T) {
	t.Parallel()
	n := 50
	if os.Getenv("AGENTFILES_FULL") == "1" {
		n = 500
	}
	r := rand.New(rand.NewSource(seed(4343)))
	var cases []difftest.Case
	seen := map[string]bool{}
	for len(cases) < n {
		script := randomSedScript(r)
		args := []string{"sed"}
		if r.Intn(2) == 0 {
			args = append(args, "-n")
		}
		for _, line := range strings.Split(script, "\n") {
			args = append(args, "-e", line)
		}
		file := []string{"a.txt", "b.txt", "noeol.txt", "words.txt"}[r.Intn(4)]
		args = append(args, file)
		name := strings.Join(args, " ")
		if seen[name] {
			continue
		}
		seen[name] = true
		cases = append(cases, difftest.Case{Args: args})
	}
	difftest.Run(t, difftest.StandardTree(), cases)
}

// randomTable is lines of fields separated by spaces, tabs or commas: numbers (signed,
// fractional, with leading blanks), versions, words in both cases, empty fields.
func randomTable(r *rand.Rand, lines int) string {
	fields := []string{"10", "2", "-3", "1.5", "+4", "0", "007", " 12", "1e2", "0x1F", "abc", "ABC", "Abc", "b", "", "v1.10", "v1.9",
		"1.2.3", "1.2.10", "x-1", "2K", "1M", "999", "-0", "z", "α", "é"}
	seps := []string{" ", "\t", ",", "  "}
	var sb strings.Builder
	for i := 0; i < lines; i++ {
		n := 1 + r.Intn(4)
		sep := seps[r.Intn(len(seps))]
		for j := 0; j < n; j++ {
			if j > 0 {
				sb.WriteString(sep)
			}
			sb.WriteString(fields[r.Intn(len(fields))])
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// TestDiffRandomTextTools: sort, uniq, cut, tr, head and tail with generated flags over
// generated tables answer as coreutils does (a fixed seed; AGENTFILES_FULL=1 tries ten times
// as many).
func TestDiffRandomTextTools(t *testing.T) {
	t.Parallel()
	n := 60
	if os.Getenv("AGENTFILES_FULL") == "1" {
		n = 600
	}
	r := rand.New(rand.NewSource(seed(434343)))
	pick := func(s ...string) string { return s[r.Intn(len(s))] }
	var cases []difftest.Case
	seen := map[string]bool{}
	for len(cases) < n {
		var args []string
		switch r.Intn(6) {
		case 0, 1:
			args = []string{"sort"}
			for k := r.Intn(3); k > 0; k-- {
				args = append(args, pick("-n", "-r", "-u", "-f", "-b", "-V", "-g", "-h", "-s", "-d", "-nr", "-rn", "-fu"))
			}
			if r.Intn(2) == 0 {
				args = append(args, "-t", pick(",", " ", "\t"))
			}
			for k := r.Intn(3); k > 0; k-- {
				args = append(args, "-k", pick("1", "2", "1,1", "2,2", "2n", "1r", "2,2nr", "1.2", "2.1,2.2", "3", "1b,1", "2V"))
			}
		case 2:
			args = []string{"uniq", pick("-c", "-d", "-u", "-i", "-ci", "-D", "-f1", "-s2", "-w1", "-c")}
		case 3:
			args = []string{"cut"}
			if r.Intn(2) == 0 {
				args = append(args, "-d", pick(",", " ", "\t"), "-f", pick("1", "2", "1,3", "2-", "-2", "1-2,4"))
				if r.Intn(3) == 0 {
					args = append(args, "-s")
				}
				if r.Intn(4) == 0 {
					args = append(args, "--complement")
				}
			} else {
				args = append(args, pick("-c", "-b"), pick("1", "2-4", "-3", "3-", "1,3,5"))
			}
		case 4:
			args = []string{"tr"}
			switch r.Intn(4) {
			case 0:
				args = append(args, pick("a-z", "[:lower:]", "abc", "0-9", "[:digit:]", ",\\t"), pick("A-Z", "[:upper:]", "x", "#", "[x*]", "_"))
			case 1:
				args = append(args, "-d", pick("0-9", "[:space:]", "a-c", ",", "[:punct:]"))
			case 2:
				args = append(args, "-s", pick(" ", "0-9", "[:alpha:]", "\\t "))
			default:
				args = append(args, "-cd", pick("[:alnum:]\\n", "0-9\\n", "a-z\\n"))
			}
		default:
			args = []string{pick("head", "tail"), pick("-n", "-c"), pick("3", "+2", "-2", "0", "10", "1")}
			if args[0] == "head" && strings.HasPrefix(args[2], "+") {
				args[2] = "2"
			}
		}
		c := difftest.Case{Args: args, Stdin: randomTable(r, 3+r.Intn(12))}
		name := strings.Join(args, " ") + c.Stdin
		if seen[name] {
			continue
		}
		seen[name] = true
		c.Name = fmt.Sprintf("%03d %s", len(cases), strings.Join(args, " "))
		cases = append(cases, c)
	}
	difftest.Run(t, difftest.StandardTree(), cases)
}

// TestDiffRandomSearches: grep, rg and find with generated flags, patterns and operands over
// the standard tree answer as GNU grep, ripgrep and findutils do (a fixed seed;
// AGENTFILES_FULL=1 tries ten times as many).
func TestDiffRandomSearches(t *testing.T) {
	t.Parallel()
	n := 60
	if os.Getenv("AGENTFILES_FULL") == "1" {
		n = 600
	}
	r := rand.New(rand.NewSource(seed(43434343)))
	pick := func(s ...string) string { return s[r.Intn(len(s))] }
	patterns := []string{"foo", "Foo", "o", "^a", "a$", "fo+", "[0-9]", "TODO", "line", "x", "the", "e.a", "foo|bar", "\\bfoo\\b", ""}
	files := []string{"mixed.txt", "a.txt", "b.txt", "README.md", "noeol.txt", "crlf.txt", "docs", "src", "repo", "nogit", ".", "bin.dat", "empty.txt"}
	var cases []difftest.Case
	seen := map[string]bool{}
	for len(cases) < n {
		var args []string
		unordered := false
		switch r.Intn(3) {
		case 0:
			args = []string{"grep"}
			for k := r.Intn(4); k > 0; k-- {
				args = append(args, pick("-n", "-i", "-w", "-x", "-v", "-c", "-l", "-L", "-o", "-h", "-H", "-A1", "-B1", "-C1", "-m2", "-F", "-E", "-s", "-a", "-I"))
			}
			recursive := r.Intn(2) == 0
			if recursive {
				args = append(args, "-r")
				unordered = true
				if r.Intn(3) == 0 {
					args = append(args, pick("--include=*.txt", "--include=*.go", "--exclude=*.md", "--exclude-dir=repo"))
				}
			}
			args = append(args, "-e", pick(patterns...))
			for k := r.Intn(3); k > 0; k-- {
				f := pick(files...)
				if !recursive && (f == "docs" || f == "src" || f == "repo" || f == "nogit" || f == ".") {
					f = "a.txt"
				}
				args = append(args, f)
			}
			if len(args) > 0 && strings.Contains(strings.Join(args, " "), " -C1") || strings.Contains(strings.Join(args, " "), "-A1") || strings.Contains(strings.Join(args, " "), "-B1") {
				unordered = false
				if recursive {
					continue // context groups across files follow the disk's order
				}
			}
		case 1:
			args = []string{"rg"}
			for k := r.Intn(4); k > 0; k-- {
				args = append(args, pick("-n", "-i", "-S", "-w", "-x", "-v", "-c", "-l", "-o", "-F", "-H", "-I", "-C1", "-A1", "-m1",
					"--hidden", "--no-ignore", "-u", "--count-matches", "--column", "-N"))
			}
			if r.Intn(3) == 0 {
				args = append(args, "-g", pick("*.txt", "!*.md", "*.{go,md}", "docs/**", "!repo"))
			}
			if r.Intn(4) == 0 {
				args = append(args, "-t", pick("go", "md", "txt", "json"))
			}
			// An empty pattern with -o or --count-matches counts positions, which ripgrep
			// does in bytes and Go's regexp in characters: leave it to grep.
			args = append(args, "-e", pick(patterns[:len(patterns)-1]...))
			for k := r.Intn(3); k > 0; k-- {
				if f := pick(files...); f != "bin.dat" { // ripgrep's binary rules: see TestDiffRg
					args = append(args, f)
				}
			}
		default:
			args = []string{"find", pick(".", "src", "docs", "repo", "nogit", "src/", "a.txt")}
			unordered = true
			for k := 1 + r.Intn(3); k > 0; k-- {
				switch r.Intn(8) {
				case 0:
					args = append(args, "-name", pick("*.go", "*.txt", "a*", "[ab]*", "*e*", ".*"))
				case 1:
					args = append(args, "-type", pick("f", "d"))
				case 2:
					args = append(args, pick("-maxdepth", "-mindepth"), pick("0", "1", "2"))
				case 3:
					args = append(args, "-path", pick("*/lib/*", "./src*", "*git*"))
				case 4:
					args = append(args, pick("-empty", "-print", "-true"))
				case 5:
					args = append(args, "!", "-name", pick("*.go", "*.md"))
				case 6:
					args = append(args, "-iname", pick("README*", "*.GO", "*TXT"))
				default:
					args = append(args, "-o", "-name", pick("*.json", "x*"))
				}
			}
		}
		name := strings.Join(args, " ")
		if seen[name] {
			continue
		}
		seen[name] = true
		cases = append(cases, difftest.Case{Name: fmt.Sprintf("%03d %s", len(cases), name), Args: args, Unordered: unordered})
	}
	difftest.Run(t, difftest.StandardTree(), cases)
}

// TestDiffRandomFileTools: ls, wc, cat, nl, head, tail, tree and basename with generated flags
// and operands over the standard tree answer as coreutils and tree do (a fixed seed;
// AGENTFILES_FULL=1 tries ten times as many).
func TestDiffRandomFileTools(t *testing.T) {
	t.Parallel()
	n := 60
	if os.Getenv("AGENTFILES_FULL") == "1" {
		n = 600
	}
	r := rand.New(rand.NewSource(seed(4343434343)))
	pick := func(s ...string) string { return s[r.Intn(len(s))] }
	files := []string{"a.txt", "b.txt", "noeol.txt", "empty.txt", "crlf.txt", "tabs.txt", "café.txt", "with space.txt", "README.md",
		"src", "docs", "emptydir", "src/lib", "nosuch", ".hidden", "big.txt"}
	var cases []difftest.Case
	seen := map[string]bool{}
	for len(cases) < n {
		var args []string
		blocks := false
		operands := 1 + r.Intn(3)
		switch r.Intn(7) {
		case 0:
			args = []string{"ls"}
			for k := r.Intn(3); k > 0; k-- {
				f := pick("-a", "-A", "-1", "-d", "-R", "-l", "-h", "-t", "-S", "-r", "-F", "-p", "-la", "-lh", "-ltr", "-1A")
				blocks = blocks || strings.Contains(f, "l")
				args = append(args, f)
			}
			operands = r.Intn(3)
			if all := strings.Join(args, ""); operands == 0 && strings.Contains(all, "a") && strings.Contains(all, "l") {
				operands = 1 // ls -la at the root shows "..", which for the disk copy is outside the tree
			}
		case 1:
			args = []string{"wc"}
			for k := r.Intn(3); k > 0; k-- {
				args = append(args, pick("-l", "-w", "-c", "-m", "-L", "-lw", "-lc"))
			}
		case 2:
			args = []string{"cat"}
			for k := r.Intn(3); k > 0; k-- {
				args = append(args, pick("-n", "-b", "-s", "-E", "-T", "-A", "-v", "-ns", "-bE"))
			}
		case 3:
			args = []string{"nl", pick("-ba", "-bt", "-bn", "-ba"), pick("-w3", "-w1", "-s:", "-nln", "-nrz", "-v5", "-i2", "-w6")}
		case 4:
			args = []string{pick("head", "tail"), pick("-n", "-c"), pick("1", "2", "5", "0", "-1", "+2", "100", "1K")}
			if args[0] == "head" && strings.HasPrefix(args[2], "+") {
				args[2] = "3"
			}
			if args[0] == "tail" && strings.HasPrefix(args[2], "-") {
				args[2] = "3"
			}
			if args[1] == "-c" {
				files = files[:11] // tail -c and directories: GNU stops at the first one
			}
			if r.Intn(3) == 0 {
				args = append(args, pick("-q", "-v"))
			}
		case 5:
			args = []string{"tree"}
			for k := r.Intn(3); k > 0; k-- {
				args = append(args, pick("-a", "-d", "-L", "-f", "-F", "--noreport", "--dirsfirst", "-i", "-I", "-P"))
				switch args[len(args)-1] {
				case "-L":
					args = append(args, pick("1", "2"))
				case "-I", "-P":
					args = append(args, pick("*.go", "*.txt", "lib", "*.md|*.go"))
				}
			}
			operands = r.Intn(2)
		default:
			args = []string{"basename", pick("-a", "-s", "-z")}
			if args[1] == "-s" {
				args = append(args, pick(".txt", ".md", "b"))
			}
			operands = 1 + r.Intn(3)
			for k := 0; k < operands; k++ {
				args = append(args, pick("/a/b.txt", "x/", "//", "c.md", "dir/sub/", "a.txt.txt", "b"))
			}
			operands = 0
		}
		for k := 0; k < operands; k++ {
			f := pick(files...)
			if args[0] == "tree" && f != "src" && f != "docs" && f != "emptydir" && f != "src/lib" {
				f = "src"
			}
			args = append(args, f)
		}
		name := strings.Join(args, " ")
		if seen[name] {
			continue
		}
		seen[name] = true
		cases = append(cases, difftest.Case{Name: fmt.Sprintf("%03d %s", len(cases), name), Args: args, BlockSizes: blocks})
	}
	difftest.Run(t, difftest.StandardTree(), cases)
}

// TestDiffRandomDiffs: diff and diff -u of generated file pairs (lines from a small set, so
// the edit scripts have many equally short choices) print what GNU diff prints (a fixed
// seed; AGENTFILES_FULL=1 tries ten times as many).
func TestDiffRandomDiffs(t *testing.T) {
	t.Parallel()
	n := 40
	if os.Getenv("AGENTFILES_FULL") == "1" {
		n = 400
	}
	r := rand.New(rand.NewSource(seed(434)))
	text := func() string {
		var sb strings.Builder
		// Mostly short files; some long ones, with lines that repeat often (which GNU
		// diff sets aside as confusing) and lines that occur once.
		lines := r.Intn(14)
		if r.Intn(5) == 0 {
			lines = 50 + r.Intn(250)
		}
		for k := lines; k > 0; k-- {
			if r.Intn(4) == 0 {
				fmt.Fprintf(&sb, "line %d\n", r.Intn(400))
				continue
			}
			sb.WriteString([]string{"a", "b", "c", "d", "e", "", "f g", "}"}[r.Intn(8)])
			sb.WriteByte('\n')
		}
		if r.Intn(6) == 0 {
			sb.WriteString("last")
		}
		return sb.String()
	}
	tree := difftest.StandardTree()
	var cases []difftest.Case
	for i := 0; i < n; i++ {
		a, b := fmt.Sprintf("pairs/%03d.a", i), fmt.Sprintf("pairs/%03d.b", i)
		tree.Files[a] = memfs.File{Data: text(), ModTime: difftest.Base}
		tree.Files[b] = memfs.File{Data: text(), ModTime: difftest.Base}
		args := []string{"diff"}
		switch r.Intn(3) {
		case 0:
			args = append(args, "-u")
		case 1:
			args = append(args, "-U", fmt.Sprint(r.Intn(3)))
		}
		cases = append(cases, difftest.Case{Args: append(args, a, b)})
	}
	difftest.Run(t, tree, cases)
}

// TestDiffRandomFileOps: cp, mv, rm, mkdir and touch with generated flags and operands
// leave the same files and print the same as coreutils (a fixed seed; AGENTFILES_FULL=1
// tries ten times as many).
func TestDiffRandomFileOps(t *testing.T) {
	t.Parallel()
	n := 30
	if os.Getenv("AGENTFILES_FULL") == "1" {
		n = 300
	}
	r := rand.New(rand.NewSource(seed(43434)))
	pick := func(s ...string) string { return s[r.Intn(len(s))] }
	paths := []string{"a.txt", "b.txt", "src", "src/", "src/lib", "docs", "docs/notes.txt", "emptydir", "nosuch", "new", "new/x",
		"src/main.go", "a.txt/x", ".hidden", "repo/build", "with space.txt", "x.txt", "docs/deep"}
	var cases []difftest.Case
	seen := map[string]bool{}
	for len(cases) < n {
		var args []string
		switch r.Intn(5) {
		case 0:
			args = []string{"cp"}
			for k := r.Intn(3); k > 0; k-- {
				args = append(args, pick("-r", "-R", "-n", "-v", "-a", "-p", "-f", "-T"))
			}
		case 1:
			args = []string{"mv"}
			for k := r.Intn(2); k > 0; k-- {
				args = append(args, pick("-n", "-v", "-f", "-T"))
			}
		case 2:
			args = []string{"rm"}
			for k := r.Intn(3); k > 0; k-- {
				args = append(args, pick("-r", "-f", "-rf", "-v", "-d", "-R"))
			}
		case 3:
			args = []string{"mkdir"}
			for k := r.Intn(2); k > 0; k-- {
				args = append(args, pick("-p", "-v"))
			}
		default:
			args = []string{"touch"}
			if r.Intn(3) == 0 {
				args = append(args, "-c")
			}
		}
		for k := 1 + r.Intn(3); k > 0; k-- {
			args = append(args, pick(paths...))
		}
		name := strings.Join(args, " ")
		if seen[name] || intoItself(args) {
			continue
		}
		seen[name] = true
		// rm -v and cp -v print in the order the disk lists directories.
		unordered := strings.Contains(name, "-v") || strings.Contains(name, "-rv") || strings.Contains(name, "-rf -v")
		cases = append(cases, difftest.Case{Name: fmt.Sprintf("%03d %s", len(cases), name), Args: args, Writes: true,
			StderrExact: !unordered, Unordered: unordered})
	}
	difftest.Run(t, difftest.StandardTree(), cases)
}

// TestDiffRandomXargs: xargs with generated flags over generated input runs what GNU xargs
// runs (a fixed seed; AGENTFILES_FULL=1 tries ten times as many).
func TestDiffRandomXargs(t *testing.T) {
	t.Parallel()
	n := 30
	if os.Getenv("AGENTFILES_FULL") == "1" {
		n = 300
	}
	r := rand.New(rand.NewSource(seed(4343434)))
	pick := func(s ...string) string { return s[r.Intn(len(s))] }
	words := []string{"a.txt", "b.txt", "x", "'q u'", "\"d q\"", "back\\ slash", "nosuch", "", "  ", "\t"}
	var cases []difftest.Case
	seen := map[string]bool{}
	for len(cases) < n {
		args := []string{"xargs"}
		for k := r.Intn(3); k > 0; k-- {
			switch f := pick("-n", "-L", "-I", "-r", "-t", "-0", "-d"); f {
			case "-n", "-L":
				args = append(args, f, pick("1", "2", "3"))
			case "-I":
				args = append(args, "-I", "{}")
			case "-d":
				args = append(args, "-d", pick(",", "\\n", "x"))
			default:
				args = append(args, f)
			}
		}
		if strings.Contains(strings.Join(args, " "), "-I") {
			args = append(args, "echo", "<{}>")
		} else {
			args = append(args, pick("echo", "wc -l", "cat", "echo -n"))
			if f := strings.Fields(args[len(args)-1]); len(f) > 1 {
				args = append(args[:len(args)-1], f...)
			}
		}
		var in strings.Builder
		for k := r.Intn(7); k > 0; k-- {
			in.WriteString(pick(words...))
			in.WriteString(pick(" ", "\n", ",", "\x00", "  \n"))
		}
		name := strings.Join(args, " ") + "<<" + in.String()
		if seen[name] || in.Len() == 0 {
			continue
		}
		seen[name] = true
		cases = append(cases, difftest.Case{Name: fmt.Sprintf("%03d %s", len(cases), strings.Join(args, " ")), Args: args, Stdin: in.String()})
	}
	difftest.Run(t, difftest.StandardTree(), cases)
}

// intoItself reports whether a cp line copies a directory into itself: GNU copies part of
// it, in the order the disk lists it, then stops.
func intoItself(args []string) bool {
	if args[0] != "cp" {
		return false
	}
	for i, a := range args[1:] {
		for j, b := range args[1:] {
			if i != j && (a == b || strings.HasPrefix(b, strings.TrimSuffix(a, "/")+"/")) {
				return true
			}
		}
	}
	return false
}
