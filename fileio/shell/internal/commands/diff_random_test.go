package commands_test

import (
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/difftest"
)

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
	r := rand.New(rand.NewSource(43))
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
