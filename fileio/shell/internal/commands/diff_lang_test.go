package commands_test

import (
	"os"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/difftest"
)

// awkOracle is the awk the differential suite compares with: original-awk (the one true
// awk), whose POSIX behaviour goawk follows; AGENTFILES_AWK_ORACLE names another.
func awkOracle() string {
	if o := os.Getenv("AGENTFILES_AWK_ORACLE"); o != "" {
		return o
	}
	return "original-awk"
}

func TestDiffAwk(t *testing.T) {
	t.Parallel()
	tree := difftest.StandardTree()
	a := func(args ...string) difftest.Case {
		return difftest.Case{Args: append([]string{"awk"}, args...), Oracle: append([]string{awkOracle()}, args...)}
	}
	ai := func(stdin string, args ...string) difftest.Case {
		c := a(args...)
		c.Stdin = stdin
		return c
	}
	cases := []difftest.Case{
		a("{print $1}", "b.txt"),
		a("{print $NF}", "b.txt"),
		a("{print NR\": \"$0}", "a.txt"),
		a("NR==3", "a.txt"),
		a("NR>=3 && NR<=5", "a.txt"),
		a("/eta/", "a.txt"),
		a("!/a/", "a.txt"),
		a("/beta/,/delta/", "a.txt"),
		a("-F,", "{print $2}", "table.csv"),
		a("-F", ",", "NR>1{s+=$2} END{print s}", "table.csv"),
		a("-F,", "{print NF}", "table.csv"),
		a("-F\t", "{print $3}", "table.tsv"),
		a("-v", "OFS=-", "{$1=$1; print}", "b.txt"),
		a("-v", "n=2", "NR==n", "a.txt"),
		a("BEGIN{OFS=\",\"} {print $1,$2}", "b.txt"),
		a("{n+=NF} END{print n, NR}", "b.txt", "a.txt"),
		a("END{print NR}", "big.txt"),
		a("{print length($0)}", "b.txt"),
		a("{print toupper($0)}", "b.txt"),
		a("{print substr($0, 2, 3)}", "a.txt"),
		a("{gsub(/a/, \"A\"); print}", "a.txt"),
		a("{sub(/e/, \"E\"); print}", "a.txt"),
		a("{print index($0, \"ta\")}", "a.txt"),
		a("{printf \"%-10s|%5d\\n\", $1, NR}", "b.txt"),
		a("{printf \"%.2f %e %.3g\\n\", NR/3, NR*1000, NR/7}", "b.txt"),
		a("BEGIN{print 1/3, 100000*100000, 2^53, 0.1+0.2}"),
		a("BEGIN{x[\"a\"]=1; x[\"b\"]=2; n=0; for (k in x) n+=x[k]; print n}"),
		a("{c[$1]++} END{n=0; for (w in c) if (c[w]>1) n++; print n}", "words.txt"),
		a("{split($0, p, \" \"); print p[2]}", "b.txt"),
		a("FNR==1{print FILENAME}", "a.txt", "b.txt"),
		a("{print FILENAME\":\"FNR\":\"NR}", "b.txt", "noeol.txt"),
		a("END{print FILENAME}", "a.txt", "b.txt"),
		a("BEGIN{print \"begin\"} END{print \"end\"}", "empty.txt"),
		a("{print}", "noeol.txt"),
		a("{print NF}", "spaces.txt"),
		a("{print $2}", "x=1", "b.txt"),
		a("{print x, $1}", "x=5", "b.txt", "x=7", "a.txt"),
		a("length($0) > 5", "a.txt"),
		a("{ $3 = \"X\"; print }", "b.txt"),
		a("{ NF = 2; print }", "b.txt"),
		a("function f(x) { return x*2 } {print f(NR)}", "b.txt"),
		a("BEGIN{printf \"%c%c\\n\", 65, \"hello\"}"),
		a("BEGIN{print substr(\"hello\", 0), substr(\"hello\", -1, 3)}"),
		a("BEGIN{print match(\"foobar\", /o+/), RSTART, RLENGTH}"),
		a("BEGIN{print sprintf(\"%5.1f|%-5s|%05d\", 3.14159, \"ab\", 42)}"),
		a("BEGIN{print int(-3.7), int(3.7), 7%3, -7%3}"),
		a("BEGIN { exit 3 }"),
		a("{print; exit}", "a.txt"),
		a("NR==2{next} {print}", "b.txt"),
		a("BEGIN{RS=\"\"} {print NR\": \"$1}", "README.md"),
		a("BEGIN{FS=\":\"} {print $1}", "README.md"),
		a("$1 ~ /^[0-9]+$/ {s+=$1} END{print s+0}", "numbers.txt"),
		a("{print $1}", "nosuch"),
		a("{print $1}", "nosuch", "b.txt"),
		ai("x y\nz w\n", "{print $2}"),
		ai("3\n1\n2\n", "{s+=$1} END{print s}"),
		ai("a b\n", "{print $1}", "-"),
		a("FNR==1{n++} END{print n, NR}", "a.txt", "empty.txt", "b.txt"),
		a("NR==FNR{seen[$1]; next} $1 in seen", "words.txt", "mixed.txt"),
		a("NR==FNR{n++; next} END{print n, FNR, NR}", "a.txt", "b.txt"),
		a("FNR==2{print FILENAME\": \"$0}", "a.txt", "empty.txt", "noeol.txt", "b.txt"),
		ai("from stdin\n", "{print FILENAME\":\"FNR\":\"$0}", "a.txt", "-", "b.txt"),
		a("{nextfile_seen=1} FNR==3{print FILENAME; n++} END{print n}", "a.txt", "b.txt", "big.txt"),
		a("BEGIN{while ((getline l) > 0) n++; print n}", "a.txt"),
		a("{getline; print}", "a.txt"),
		a("END{print $0, NF}", "b.txt"),
		a("-v", "x=a\\tb", "BEGIN{print x}"),
		a("-f", "nosuch.awk", "a.txt"),
		a("{print $1", "a.txt"),
	}
	// What goawk cannot do here, refused with a message (no host files, pipes or commands),
	// and what it does differently (checked so a change shows).
	refused := func(name, msg string, args ...string) difftest.Case {
		c := a(args...)
		c.Name = name
		c.StderrExact = true
		c.Want = &difftest.Result{Status: 2, Stderr: "awk: " + msg + "\n"}
		return c
	}
	cases = append(cases,
		refused("awk pipe refused", "can't write to pipe due to NoExec", "{print | \"cat\"}", "b.txt"),
		refused("awk system refused", "can't call system() due to NoExec", "BEGIN{system(\"ls\")}"),
		refused("awk file write refused", "can't write to file due to NoFileWrites", "{print > \"out.txt\"}", "b.txt"),
		refused("awk getline file refused", "can't read from file due to NoFileReads", "BEGIN{getline line < \"a.txt\"}"),
		refused("awk /dev/stdout refused", "can't write to file due to NoFileWrites", "{print > \"/dev/stdout\"}", "b.txt"),
		difftest.Case{Name: "awk drops CR of CRLF lines (goawk)", Args: []string{"awk", "{print}", "crlf.txt"},
			Want: &difftest.Result{Stdout: "line one\nline two\nline three\n"}},
		difftest.Case{Name: "awk %g prints the shortest form (goawk)", Args: []string{"awk", "BEGIN{printf \"%g\\n\", 1/7}"},
			Want: &difftest.Result{Stdout: "0.14285714285714285\n"}},
	)
	difftest.Run(t, tree, cases)
}

func TestDiffJq(t *testing.T) {
	t.Parallel()
	tree := difftest.StandardTree()
	j := func(args ...string) difftest.Case { return difftest.Case{Args: append([]string{"jq"}, args...)} }
	ji := func(stdin string, args ...string) difftest.Case {
		return difftest.Case{Args: append([]string{"jq"}, args...), Stdin: stdin}
	}
	cases := []difftest.Case{
		j(".", "data.json"),
		j("-c", ".", "data.json"),
		j(".name", "data.json"),
		j("-r", ".name", "data.json"),
		j(".tags[]", "data.json"),
		j("-r", ".tags[]", "data.json"),
		j("-r", ".tags | join(\",\")", "data.json"),
		j(".items[] | select(.ok) | .id", "data.json"),
		j("-c", ".items[] | {id, n}", "data.json"),
		j("[.items[].id] | add", "data.json"),
		j(".items | length", "data.json"),
		j(".items | map(.n)", "data.json"),
		j("keys", "data.json"),
		j(".nested.k.v", "data.json"),
		j(".nested.k.v | map(. * 1.5)", "data.json"),
		j(".missing", "data.json"),
		j(".nil // \"default\"", "data.json"),
		j("to_entries | map(.key)", "data.json"),
		j("-r", ".items[] | \"\\(.id)\\t\\(.n)\"", "data.json"),
		j("-r", ".items[] | [.id, .n] | @csv", "data.json"),
		j("-r", ".items[] | [.id, .n] | @tsv", "data.json"),
		j(".a", "lines.json"),
		j("input_filename", "lines.json", "data.json"),
		j("-n", "input_filename"),
		j("-c", ".", "lines.json"),
		j("-s", "length", "lines.json"),
		j("-s", "map(.a) | add", "lines.json"),
		j("-c", "-s", ".", "lines.json", "data.json"),
		j("-n", "1 + 2"),
		j("-n", "[range(5)]"),
		j("-n", "-c", "[range(5)]"),
		j("-n", "{a: 1, b: [1, 2]}"),
		j("-n", "1/3, 2.5, 1e100, 100000000000000000000, -0.0, 3.0"),
		j("-n", "\"a\\tb\\u00e9\\u0001\""),
		j("-n", "-r", "\"a\\tb\""),
		j("-j", ".tags[]", "data.json"),
		j("-n", "-c", "--arg", "a", "1", "--argjson", "b", "2", "$ARGS.named"),
		j("-n", "-c", "$ARGS.positional", "--args", "x", "y"),
		j("-n", "-c", "$ARGS.positional", "--jsonargs", "1", "{\"k\":true}"),
		j("-n", "--rawfile", "t", "b.txt", "$t | length"),
		j("-n", "-c", "--slurpfile", "l", "lines.json", "$l | map(.a)"),
		j("-n", "--rawfile", "t", "nosuch", "$t"),
		j("--arg", "x", "hi", "-n", "$x"),
		j("--argjson", "x", "{\"k\":[1,2]}", "-n", "-c", "$x.k"),
		j("-e", ".nil", "data.json"),
		j("-e", ".name", "data.json"),
		j("-e", "empty", "data.json"),
		j("--tab", ".nested", "data.json"),
		j("--indent", "4", ".nested", "data.json"),
		j(".[0]", "data.json"),
		j(".name", "nosuch"),
		j(".", "a.txt"),
		j(".a.b", "lines.json"),
		j("-n", "[1,2] | .[5]"),
		j("-n", "{} | keys"),
		j("-n", "[] | first"),
		j("-n", "\"x\" | test(\"X\"; \"i\")"),
		j("-n", "\"a-b-c\" | split(\"-\")"),
		j("-n", "\"abc\" | ascii_upcase"),
		j("-n", "[3,1,2] | sort"),
		j("-n", "-c", "[{a:2},{a:1}] | sort_by(.a)"),
		j("-n", "-c", "[1,2,2,3] | unique"),
		j("-n", "-c", "[[1,2],[3]] | flatten"),
		j("-n", "-c", "{a:1} + {b:2}"),
		j("-n", "-c", "[1,2,3] | map(select(. > 1))"),
		j("-n", "\"2015-03-05T23:51:47Z\" | fromdate"),
		j("-n", "-c", "[limit(3; range(10))]"),
		j("-n", "-c", "reduce range(5) as $i (0; . + $i)"),
		j("-n", "[.[]?]"),
		j("-n", "\"abc\" | .[1:]"),
		j("-n", "\"\\(1 + 2)\""),
		j("-n", "@base64 \"hi\""),
		j("-n", "-r", "[1,[2]] | tostring"),
		j(".["),
		j(),
		j("-Z", "."),
		ji("{\"x\": 1}", ".x"),
		ji("{\"x\": 1}\n{\"x\": 2}\n", ".x"),
		ji("[1,2,3]", "-c", "map(. * 2)"),
		ji("not json", "."),
		ji("1 2 3", "-s", "add"),
		ji("\"a\"\n\"b\"\n", "-r", "."),
		ji("{\"a\":1}", "-c", ".", "-"),
		ji("line1\nline2\n", "-R", "."),
		ji("line1\nline2\n", "-Rs", "."),
		ji("[1,2]", "-n", "[inputs]"),
		ji("1\n2\n3\n", "-n", "input"),
		ji("{\"x\": 1}", ".x.y"),
		ji("{\"x\": 1}", "input_filename"),
		{Name: "jq has no environment", Args: []string{"jq", "-n", "$ENV | length"}, Want: &difftest.Result{Stdout: "0\n"}},
	}
	difftest.Run(t, tree, cases)
}
