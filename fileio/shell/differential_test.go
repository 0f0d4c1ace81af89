package shell_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/fileiotools"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/shell/internal/commands"
	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// The command-line differential suite: each line runs through the file_shell tool (its
// handler, JSON in and out) on a project holding diffTree, and through GNU bash 5 with the
// Debian tools in a disk copy of the same tree (LC_ALL=C, TZ=UTC, PATH=/usr/bin:/bin, the
// copy's root as the working directory); stdout, the exit status and the files left behind
// must agree byte for byte. Lines use relative paths (the disk copy is not at "/").
//
// A line runs only once every command it names is in the registry (the Go commands land
// separately); the test logs how many ran.

var diffTree = map[string]string{
	"README.md":                "# demo\n\nA small project.\nTODO: write more\n",
	"src/main.go":              "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\") // TODO greet\n}\n",
	"src/util/strings.go":      "package util\n\n// Upper upper-cases s.\nfunc Upper(s string) string { return s }\n",
	"src/util/strings_test.go": "package util\n\nimport \"testing\"\n\nfunc TestUpper(t *testing.T) {}\n",
	"docs/guide.md":            "# Guide\n\nStep one.\nStep two.\nStep three.\n",
	"docs/notes.txt":           "beta\nalpha\ngamma\nalpha\ndelta\n",
	"data/numbers.txt":         "10\n9\n100\n-3\n7\n9\n",
	"data/people.csv":          "name,age,city\nada,36,london\nalan,41,wilmslow\ngrace,85,arlington\n",
	"data/config.json":         "{\"name\": \"demo\", \"tags\": [\"a\", \"b\"], \"nested\": {\"n\": 3}}\n",
	"data/words.txt":           "apple\nBanana\ncherry\napple\nbanana\n",
	"empty.txt":                "",
	"no-newline.txt":           "last line without newline",
	".hidden/secret.txt":       "hidden TODO\n",
	"a b/space name.txt":       "spaced\n",
}

// diffLines are the command lines of the suite.
var diffLines = []string{
	// echo, printf, quoting, expansion
	`echo hello world`,
	`echo -n no newline; echo`,
	`echo -e 'a\tb\nc'`,
	`printf '%s=%d\n' a 1 b 2`,
	`printf '%5s|%-5s|%05d\n' ab cd 42`,
	`printf '%x %o %c\n' 255 8 xyz`,
	`x=5; echo "$x ${x}0 ${#x}"`,
	`s=hello.tar.gz; echo ${s%.gz} ${s%%.*} ${s#*.} ${s##*.} ${s/l/L} ${s//l/L}`,
	`s=abcdef; echo ${s:2} ${s:1:3} ${s: -2}`,
	`unset v; echo "${v:-default} ${v-unset} [${v:+set}]"; v=1; echo "${v:+set}"`,
	`a=(one two three); echo ${a[1]} ${#a[@]} "${a[@]}"`,
	`a=(); a+=(x); a+=(y z); echo ${a[*]}`,
	`declare -A m; m[k]=v; m[j]=w; echo ${m[k]}${m[j]}`,
	`echo $((1+2*3)) $((10/3)) $((10%3)) $((2**10)) $((-7/2))`,
	`i=0; ((i++)); ((i+=5)); echo $i`,
	`echo $(( 0x10 + 010 ))`,
	`x='a  b'; echo $x; echo "$x"`,
	`IFS=,; set -- a,b,c; echo $#; for p in $*; do echo $p; done`,
	`echo {a,b,c}.txt {1..5} {01..03}`,
	`echo 'single $x' "double $((1+1))" $'esc\tape'`,
	`echo "$(echo nested $(echo deeper))"`,
	"echo `echo backticks`",
	`v=$(printf 'a\nb\n\n'); echo "[$v]"`,
	`set -- x y z; echo $1 $3 $# "$@"; shift; echo $1`,
	`f() { echo "$# args: $*"; }; f a 'b c' d`,
	`f() { local v=in; echo $v; }; v=out; f; echo $v`,
	`f() { return 3; }; f; echo $?`,
	`true; echo $?; false; echo $?; ! true; echo $?`,
	`echo a; exit 4; echo b`,
	`(exit 2); echo $?`,
	`(cd src && echo in sub); echo after`,
	`{ echo a; echo b; } > grouped.txt; echo done`,
	// control flow
	`if [ -f README.md ]; then echo file; else echo none; fi`,
	`if [ -d src ] && [ ! -e nope ]; then echo ok; fi`,
	`[ -s empty.txt ] || echo empty; [ -s README.md ] && echo nonempty`,
	`[[ abc == a* ]] && echo glob; [[ abc =~ ^a(b)c$ ]] && echo "re ${BASH_REMATCH[1]}"`,
	`[ 10 -gt 9 ] && [[ a < b ]] && echo cmp`,
	`test -n "" || echo emptystr; test -z "" && echo zero`,
	`for i in 1 2 3; do echo $i; done`,
	`for ((i=0; i<3; i++)); do echo $i; done`,
	`i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done`,
	`i=0; until [ $i -ge 2 ]; do echo $i; i=$((i+1)); done`,
	`for i in 1 2 3 4 5; do [ $i = 2 ] && continue; [ $i = 4 ] && break; echo $i; done`,
	`for f in *; do echo "$f"; done`,
	`for f in src/*.go src/*/*.go; do echo $f; done`,
	`echo *.md docs/*`,
	`echo nomatch*`,
	`shopt -s nullglob; echo nomatch*; echo end`,
	`echo .*`,
	`echo [de]*`,
	`case README.md in *.md) echo markdown;; *) echo other;; esac`,
	`for w in apple 12 x; do case $w in [0-9]*) echo num;; a*) echo a;; *) echo other;; esac; done`,
	// reading and writing files with builtins
	`while read -r line; do echo "<$line>"; done < docs/notes.txt`,
	`while IFS=, read -r n a c; do echo "$n is $a"; done < data/people.csv`,
	`read -r first < README.md; echo "$first"`,
	`mapfile -t lines < docs/notes.txt; echo ${#lines[@]} ${lines[2]}`,
	`echo new > out.txt; echo more >> out.txt; echo wrote`,
	`printf 'x\ny\n' > a.txt; read -r l < a.txt; echo $l`,
	`echo over > README.md`,
	`: > empty2.txt; echo made`,
	`echo err >&2; echo out`,
	`echo both > both.txt 2>&1; echo ok`,
	`{ echo 1; echo 2 >&2; } 2>&1`,
	`{ echo keep; echo drop >&2; } 2>/dev/null`,
	`echo x > /dev/null; echo gone`,
	"cat <<EOF > heredoc.txt\nline $((1+1))\nEOF\necho written",
	"cat <<'EOF'\nliteral $HOME\nEOF",
	"cat <<-EOF\n\tindented\n\tEOF",
	`cat <<< "here string"`,
	`read -r a b <<< "one two three"; echo "$b"`,
	`while read -r w; do echo $w; done <<< "$(printf 'p\nq\n')"`,
	`x=$(< README.md); echo "${#x}"`,
	// pipes and commands
	`echo hello | cat`,
	`cat README.md | head -2`,
	`cat docs/notes.txt | sort`,
	`sort docs/notes.txt | uniq -c`,
	`sort -u docs/notes.txt`,
	`sort -n data/numbers.txt`,
	`sort -rn data/numbers.txt | head -3`,
	`sort -t, -k2 -n data/people.csv`,
	`cut -d, -f1,3 data/people.csv`,
	`tr a-z A-Z < docs/notes.txt`,
	`tr -d '\n' < docs/notes.txt; echo`,
	`wc -l docs/notes.txt`,
	`wc -l < docs/notes.txt`,
	`wc -c README.md docs/guide.md`,
	`head -n 2 docs/guide.md; tail -n 1 docs/guide.md`,
	`head -c 10 README.md; echo`,
	`tail -n +3 docs/guide.md`,
	`nl -ba docs/guide.md`,
	`nl -ba src/main.go | sed -n '3,5p'`,
	`sed -n '1,2p' README.md`,
	`sed 's/alpha/ALPHA/g' docs/notes.txt`,
	`sed -n '/Step/p' docs/guide.md`,
	`sed '2d' docs/notes.txt`,
	`sed -i 's/TODO/DONE/' README.md; cat README.md`,
	`sed -e 's/a/b/' -e 's/b/c/' docs/notes.txt`,
	`grep -n TODO README.md`,
	`grep -rn TODO src`,
	`grep -c alpha docs/notes.txt`,
	`grep -v alpha docs/notes.txt`,
	`grep -i banana data/words.txt`,
	`grep -l TODO -r . | sort`,
	`grep -q Guide docs/guide.md && echo found`,
	`grep nothing README.md; echo $?`,
	`grep -E '^(alpha|beta)$' docs/notes.txt`,
	`grep -o 'Step [a-z]*' docs/guide.md`,
	`rg -n TODO`,
	`rg -n TODO src`,
	`rg -l TODO | sort`,
	`rg -c alpha docs`,
	`rg -i BANANA data`,
	`rg --files | sort`,
	`rg --files src`,
	`rg -n 'func \w+' -g '*.go'`,
	`rg -w alpha docs/notes.txt`,
	`rg -F 'fmt.Println(' src`,
	`rg nothing-here; echo $?`,
	`find . -name '*.go' | sort`,
	`find src -type f | sort`,
	`find . -maxdepth 1 -type d | sort`,
	`find . -name '*.md' -newer empty.txt | sort; echo ok`,
	`find . -empty | sort`,
	`find . -path ./.hidden -prune -o -name '*.txt' -print | sort`,
	`ls`,
	`ls -1 src`,
	`ls -a`,
	`ls -d src docs`,
	`ls -R src`,
	`ls nosuch; echo $?`,
	`basename src/util/strings.go .go; dirname src/util/strings.go`,
	`seq 3; seq 2 2 8`,
	`seq 5 | paste -sd+ | bc 2>/dev/null || seq 5 | awk '{s+=$1} END {print s}'`,
	`awk -F, 'NR>1 {print $1, $2}' data/people.csv`,
	`awk '{n++} END {print n}' docs/notes.txt`,
	`awk 'length > 4' data/words.txt`,
	`jq -r .name data/config.json`,
	`jq '.tags | length' data/config.json`,
	`jq -c '.nested' data/config.json`,
	`cat data/config.json | jq -r '.tags[]'`,
	`xargs echo < docs/notes.txt`,
	`find src -name '*.go' | sort | xargs wc -l`,
	`printf 'a\nb\n' | xargs -I{} echo item {}`,
	`printf 'x y z' | xargs -n1 echo`,
	`diff docs/notes.txt docs/notes.txt; echo $?`,
	`diff -u docs/notes.txt data/words.txt | tail -n +3; diff -q docs/notes.txt data/words.txt >/dev/null; echo $?`,
	`diff <(sort docs/notes.txt) <(sort -u docs/notes.txt)`,
	`cat <(echo one) <(echo two)`,
	`while read -r l; do echo "got $l"; done < <(sort docs/notes.txt)`,
	`sha256sum README.md`,
	`echo hello | tee tee.txt | tr a-z A-Z; cat tee.txt`,
	`mkdir -p new/deep && echo x > new/deep/f.txt && cat new/deep/f.txt`,
	`mkdir new2 && cd new2 && echo x > f && cd .. && ls new2`,
	`cp README.md copy.md && cat copy.md`,
	`cp -r src src2 && find src2 | sort`,
	`mv docs/notes.txt docs/moved.txt && ls docs`,
	`rm empty.txt && ls`,
	`rm -rf src && ls`,
	`rm nosuch; echo $?`,
	`touch new.txt && ls new.txt`,
	`tree src`,
	`cat README.md no-newline.txt`,
	`cat -n docs/guide.md`,
	`cat 'a b/space name.txt'`,
	`cat missing.txt; echo $?`,
	`cat src; echo $?`,
	`echo "a,b,c" | cut -d, -f2`,
	`echo hello | rev`,
	`printf '3\n1\n2\n' | sort | tac`,
	`uniq -d <(sort data/words.txt)`,
	`sort data/words.txt | uniq -u`,
	`sort -f data/words.txt`,
	`grep -c . README.md docs/guide.md`,
	`grep -A1 alpha docs/notes.txt`,
	`grep -B1 -n gamma docs/notes.txt`,
	`grep -w -F apple data/words.txt`,
	`grep -r --include='*.md' Step .`,
	`head -n 3 README.md docs/guide.md`,
	`tail -c 5 README.md`,
	`seq 100 | tail -n 3`,
	`seq 10 | head -n -7`,
	`yes | head -n 3`,
	`yes abc | head -c 7; echo`,
	`echo x | sed 's/x/y/'`,
	`echo 'a b c' | awk '{print $2}'`,
	`nl -ba README.md | tail -n 2`,
	`sed -n '$p' docs/guide.md`,
	`sed '1i\
first' docs/notes.txt`,
	`sed '/beta/a\
after-beta' docs/notes.txt`,
	`cat > new.md <<'EOF'
# New
body
EOF
wc -l new.md`,
	`for f in docs/*; do echo "== $f"; head -n 1 "$f"; done`,
	`count=0; for f in $(find src -name '*.go' | sort); do count=$((count+1)); done; echo $count`,
	`find . -type f -name '*.txt' | sort | while read -r f; do wc -c < "$f"; done`,
	`grep -rl TODO . | sort | xargs -I{} sh -c 'echo {}'`,
	`cd src; ls; cd ..; ls -d src`,
	`cd src/util && cat strings.go | head -1`,
	`echo $(( $(wc -l < docs/notes.txt) * 2 ))`,
	`n=$(grep -c alpha docs/notes.txt); [ "$n" -eq 2 ] && echo two`,
	`set -e; false; echo unreachable`,
	`set -e; false || true; echo reached`,
	`set -o pipefail; false | true; echo $?`,
	`false | true; echo $?`,
	`echo a && echo b || echo c`,
	`false && echo a || echo c`,
	`type cd echo; type -t ls`,
	`command -v sed >/dev/null && echo has-sed`,
	`bash -c 'echo sub $1' x y`,
	`sh -c 'exit 5'; echo $?`,
	`eval 'echo evaluated'; cmd='echo built'; $cmd`,
	`f() { echo "$@" | wc -w; }; f a b c`,
	`nosuchcommand 2>/dev/null; echo $?`,
	`./README.md 2>/dev/null; echo $?`,
	`x=1; (x=2); echo $x`,
	`export E=exported; bash -c 'echo $E'`,
	`printf '%s\n' "${PWD:0:0}ok"`,
	`arr=(c b a); for x in "${arr[@]}"; do echo $x; done | sort`,
	`echo $((RANDOM >= 0))`,
}

// names lists the commands a line runs (the first word of each simple command), as far as
// a static look can tell.
func names(t *testing.T, line string) []string {
	file, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	var out []string
	syntax.Walk(file, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			if lit := c.Args[0].Lit(); lit != "" {
				out = append(out, lit)
			}
		}
		return true
	})
	// command -v NAME, and commands run by other commands.
	if rest, ok := strings.CutPrefix(line, "command -v "); ok {
		out = append(out, strings.Fields(rest)[0])
	}
	for _, w := range strings.Fields(line) {
		if w == "xargs" || w == "sh" || w == "bash" {
			for _, x := range []string{"echo", "wc", "sh"} {
				if strings.Contains(line, "xargs "+x) || strings.Contains(line, "xargs -n1 "+x) || strings.Contains(line, "xargs -I{} "+x) {
					out = append(out, x)
				}
			}
		}
	}
	return out
}

// available reports whether every command of line is offered: a builtin, bash or sh, or a
// registered Go command.
func available(t *testing.T, line string) (bool, string) {
	for _, n := range names(t, line) {
		switch {
		case interp.IsBuiltin(n), n == "bash", n == "sh", strings.Contains(n, "="), strings.HasPrefix(n, "./"):
		case commands.Lookup(n) != nil:
		case strings.HasPrefix(n, "nosuch"), n == "f", n == "$cmd":
		default:
			return false, n
		}
	}
	return true, ""
}

func TestDifferentialCommandLines(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("AGENTFILES_REQUIRE_SERVICES") == "1" {
			t.Fatal("bash is missing: install the Debian packages bash, coreutils, grep, ripgrep, jq")
		}
		t.Skip("bash is missing")
	}
	tool, svc := shellTool(t)
	ran, skipped := 0, map[string]int{}
	lines := diffLines
	if os.Getenv("AGENTFILES_FULL") != "1" {
		// A sample with a fixed seed keeps the default run short; AGENTFILES_FULL=1 runs all.
		lines = slices.Clone(lines)
		rand.New(rand.NewPCG(43, 43)).Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		lines = lines[:min(len(lines), 80)]
	}
	for i, line := range lines {
		ok, missing := available(t, line)
		if !ok {
			skipped[missing]++
			continue
		}
		ran++
		t.Run(strings.ReplaceAll(line, "/", "|"), func(t *testing.T) {
			t.Parallel()
			project := "diff" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + itoaDiff(i)
			want := runBash(t, bash, line)
			got := runTool(t, tool, svc, project, line)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\n(-bash +file_shell):\n%s", line, diff)
			}
		})
	}
	t.Logf("%d of %d command lines ran (AGENTFILES_FULL=1 runs all %d); waiting for commands: %v", ran, len(lines), len(diffLines), skipped)
}

// outcome is what a command line did.
type outcome struct {
	Stdout string
	Exit   int
	Files  map[string]string
}

// runBash runs line with GNU bash in a disk copy of diffTree.
func runBash(t *testing.T, bash, line string) outcome {
	dir := t.TempDir()
	stamp := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, p := range slices.Sorted(maps.Keys(diffTree)) {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(diffTree[p]), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(full, stamp, stamp)
		stamp = stamp.Add(time.Minute)
	}
	cmd := exec.Command(bash, "-c", line)
	cmd.Dir = dir
	// ripgrep searches with many threads and prints in the order they finish; with one thread
	// (--sort=path) it prints in path order, as the Go rg does.
	rgConfig := filepath.Join(t.TempDir(), "ripgreprc")
	os.WriteFile(rgConfig, []byte("--sort=path\n"), 0o644)
	cmd.Env = []string{"LC_ALL=C", "TZ=UTC", "PATH=/usr/bin:/bin", "HOME=/nonexistent", "RIPGREP_CONFIG_PATH=" + rgConfig}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	exit := 0
	if ee, ok := err.(*exec.ExitError); ok {
		exit = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			files["/"+filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	return outcome{Stdout: stdout.String(), Exit: exit, Files: files}
}

// shellTool returns the file_shell tool over a fresh memstore, and the Service under it.
func shellTool(t *testing.T) (adapters.Tool, *fileio.Service) {
	cfg := fileio.DefaultConfig()
	cfg.RateLimitPerSecond = 0
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range fileiotools.Tools(svc) {
		if tool.Name == "file_shell" {
			return tool, svc
		}
	}
	t.Fatal("no file_shell tool")
	return adapters.Tool{}, nil
}

var diffCtx = agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("diff-key", "diff"))

// runTool writes diffTree into project, runs line through the tool's handler (JSON in, JSON
// out) and reads the files left behind through the project's io/fs.FS.
func runTool(t *testing.T, tool adapters.Tool, svc *fileio.Service, project, line string) outcome {
	for _, p := range slices.Sorted(maps.Keys(diffTree)) {
		if _, err := svc.Write(diffCtx, fileio.WriteRequest{Project: project, Path: "/" + p, Content: diffTree[p], Mode: fileio.ModeTruncate}); err != nil {
			t.Fatal(err)
		}
	}
	args, _ := json.Marshal(map[string]any{"project": project, "command": line})
	res, err := tool.Handler(diffCtx, args)
	if err != nil {
		t.Fatalf("file_shell: %v", err)
	}
	var answer struct {
		Stdout   string `json:"stdout"`
		ExitCode int    `json:"exit_code"`
	}
	data, _ := json.Marshal(res)
	json.Unmarshal(data, &answer)
	out := outcome{Stdout: answer.Stdout, Exit: answer.ExitCode, Files: map[string]string{}}
	fsys, err := svc.FS(diffCtx, project)
	if err != nil {
		t.Fatal(err)
	}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		out.Files["/"+p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func itoaDiff(n int) string { return itoa(n) }

// TestCommandLinesWithoutOracle checks lines whose commands the host has no binary for
// (apply_patch is Codex's), against a written answer.
func TestCommandLinesWithoutOracle(t *testing.T) {
	tool, svc := shellTool(t)
	for i, tt := range []struct {
		line string
		want outcome
	}{
		{"apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: docs/guide.md\n@@\n Step one.\n-Step two.\n+Step 2.\n*** End Patch\nEOF\ncat docs/guide.md",
			outcome{Stdout: "Success. Updated the following files:\nM docs/guide.md\n# Guide\n\nStep one.\nStep 2.\nStep three.\n",
				Files: withFile(diffTree, "/docs/guide.md", "# Guide\n\nStep one.\nStep 2.\nStep three.\n")}},
	} {
		if ok, missing := available(t, tt.line); !ok {
			t.Logf("waiting for %s: %q", missing, tt.line)
			continue
		}
		got := runTool(t, tool, svc, "oracle-less-"+itoa(i), tt.line)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s\n(-want +got):\n%s", tt.line, diff)
		}
	}
}

// withFile returns tree as project files with path set to content.
func withFile(tree map[string]string, path, content string) map[string]string {
	out := map[string]string{}
	for p, c := range tree {
		out["/"+p] = c
	}
	out[path] = content
	return out
}
