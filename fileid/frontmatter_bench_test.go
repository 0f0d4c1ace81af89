package fileid

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// The front-matter benchmarks run on a generated tree shaped like product documentation:
// fmCorpusFiles Markdown files in fmCorpusDirs directories up to six levels deep, nearly every
// one opening with 6–12 lines of YAML front matter (keys with dots and spaces, quoted and
// unquoted scalars, dates, short lists, comments; a few block scalars and anchors), then about
// 9 KiB of prose, lists, tables and code. It is written once per process under a temporary directory and removed at exit.
const (
	fmCorpusFiles = 3000
	fmCorpusDirs  = 300
)

var (
	fmCorpusOnce sync.Once
	fmCorpusDir  string
	fmCorpusErr  error
)

func frontMatterCorpus(b *testing.B) string {
	b.Helper()
	fmCorpusOnce.Do(func() {
		fmCorpusDir, fmCorpusErr = os.MkdirTemp("", "fileid-fmcorpus-")
		if fmCorpusErr == nil {
			fmCorpusErr = writeFrontMatterCorpus(fmCorpusDir, fmCorpusFiles)
		}
	})
	if fmCorpusErr != nil {
		b.Fatal(fmCorpusErr)
	}
	return fmCorpusDir
}

var fmProse = strings.Fields(`the a an of to in for with on by from and or is are can you your this that
	which when if then use using configure configuration install installation deploy deployment
	cache index file files directory section heading table value values option options flag error
	errors timeout retry token query search result widget service services handler context channel
	buffer stream document parser registry root label build run test example default maximum
	minimum cluster node nodes region subscription resource group account identity policy role
	permission network gateway endpoint certificate secret key vault storage container image
	module cmdlet parameter pipeline object property method returns specifies gets sets creates
	removes updates server client request response session connection database schema migration
	version release preview feature support Windows Linux macOS PowerShell Azure portal CLI SDK`)

// fmBlock returns the front matter of file i (without the fences), one of several styles
// seen in real documentation sets.
func fmBlock(rng *rand.Rand, i int, title, slug string) string {
	word := func() string { return fmProse[rng.IntN(len(fmProse))] }
	sentence := func(n int) string {
		w := make([]string, n)
		for k := range w {
			w[k] = word()
		}
		return strings.ToUpper(w[0][:1]) + w[0][1:] + " " + strings.Join(w[1:], " ") + "."
	}
	date := fmt.Sprintf("%02d/%02d/%d", 1+rng.IntN(12), 1+rng.IntN(28), 2019+rng.IntN(6))
	isoDate := fmt.Sprintf("%d-%02d-%02d", 2019+rng.IntN(6), 1+rng.IntN(12), 1+rng.IntN(28))
	var sb strings.Builder
	switch i % 6 {
	case 0, 1: // cmdlet reference
		fmt.Fprintf(&sb, "external help file: Microsoft.Widget.Commands.dll-Help.xml\nLocale: en-US\n")
		fmt.Fprintf(&sb, "Module Name: Microsoft.Widget.Management\nms.date: %s\n", date)
		fmt.Fprintf(&sb, "online version: https://learn.example.com/widget/module/%s?view=widget-7.4&WT.mc_id=ps-gethelp\n", slug)
		fmt.Fprintf(&sb, "schema: 2.0.0\ntitle: %s\n", title)
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&sb, "aliases:\n  - %s\n", strings.ToLower(slug))
		}
	case 2, 3: // conceptual article
		if rng.IntN(2) == 0 {
			fmt.Fprintf(&sb, "title: \"Tutorial: %s\"\n", title)
		} else {
			fmt.Fprintf(&sb, "title: %s\n", title)
		}
		fmt.Fprintf(&sb, "description: %s\n", sentence(8+rng.IntN(14)))
		fmt.Fprintf(&sb, "author: writer%d\nms.author: writer%d\nms.service: widget-service\n", i%17, i%17)
		fmt.Fprintf(&sb, "ms.topic: %s\nms.date: %s\n", []string{"conceptual", "how-to", "quickstart", "reference"}[rng.IntN(4)], date)
		if rng.IntN(2) == 0 {
			sb.WriteString("ms.custom: devx-track-cli, mode-api\n")
		}
	case 4: // static-site page
		fmt.Fprintf(&sb, "title: '%s'\n", strings.ReplaceAll(title+"'s guide", "'", "''"))
		fmt.Fprintf(&sb, "description: \"%s \\\"quoted\\\" words\"\n", sentence(6+rng.IntN(8)))
		fmt.Fprintf(&sb, "date: %s\ndraft: false\nweight: %d\n", isoDate, rng.IntN(100))
		fmt.Fprintf(&sb, "tags: [%s, %s, %s]\n", word(), word(), word())
		sb.WriteString("keywords:\n- widget\n- " + word() + "\n")
	case 5: // commented, with rarer shapes
		sb.WriteString("# This file is generated; edit the source instead.\n")
		fmt.Fprintf(&sb, "title: %s # shown in the table of contents\n", title)
		switch rng.IntN(10) {
		case 0:
			fmt.Fprintf(&sb, "description: >-\n  %s\n  %s\n", sentence(8), sentence(6))
		case 1:
			fmt.Fprintf(&sb, "defaults: &defaults\n  layout: page\npage: *defaults\n")
		default:
			fmt.Fprintf(&sb, "description: %s\n  %s\n", sentence(9), sentence(7))
		}
		fmt.Fprintf(&sb, "ms.date: %s\nms.topic: reference\nlast_modified: %s\n", isoDate, isoDate)
	}
	return sb.String()
}

// writeFrontMatterCorpus writes n files into fmCorpusDirs directories: eight top-level areas
// and subdirectories up to six levels deep, about ten files per directory on average.
func writeFrontMatterCorpus(dir string, n int) error {
	rng := rand.New(rand.NewPCG(27, 3))
	word := func() string { return fmProse[rng.IntN(len(fmProse))] }
	dirs := []string{}
	for a := range 8 {
		dirs = append(dirs, fmt.Sprintf("area-%d", a))
	}
	for len(dirs) < fmCorpusDirs {
		parent := dirs[rng.IntN(len(dirs))]
		if strings.Count(parent, "/") < 5 {
			dirs = append(dirs, fmt.Sprintf("%s/%s-%d", parent, word(), len(dirs)))
		}
	}
	para := func(sb *strings.Builder, words int) {
		for k := range words {
			switch {
			case k == 0:
			case k%16 == 0:
				sb.WriteByte('\n')
			default:
				sb.WriteByte(' ')
			}
			w := word()
			switch rng.IntN(40) {
			case 0:
				w = "`" + w + "`"
			case 1:
				w = "[" + w + "](../" + word() + "/" + word() + ".md)"
			case 2:
				w = "**" + w + "**"
			}
			sb.WriteString(w)
		}
		sb.WriteString(".\n\n")
	}
	for i := range n {
		verb := []string{"Get", "Set", "New", "Remove", "Update", "Test"}[rng.IntN(6)]
		noun := word()
		noun = strings.ToUpper(noun[:1]) + noun[1:]
		title := verb + "-Widget" + noun
		slug := strings.ToLower(title)
		var sb strings.Builder
		if i%50 != 49 { // 2% without front matter
			sb.WriteString("---\n")
			sb.WriteString(fmBlock(rng, i, title, slug))
			sb.WriteString("---\n\n")
		}
		fmt.Fprintf(&sb, "# %s\n\n## Synopsis\n\n", title)
		para(&sb, 30)
		for s := range 5 + rng.IntN(5) {
			h := word()
			fmt.Fprintf(&sb, "## %s %s\n\n", strings.ToUpper(h[:1])+h[1:], word())
			para(&sb, 60+rng.IntN(120))
			if rng.IntN(2) == 0 {
				fmt.Fprintf(&sb, "```powershell\n%s -Name %s -Force\n# a comment, not a heading\n```\n\n", title, word())
			}
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&sb, "### %s %d\n\n- %s %s\n- %s %s\n- %s\n\n", word(), s, word(), word(), word(), word(), word())
				para(&sb, 40)
			}
			if rng.IntN(4) == 0 {
				sb.WriteString("| Name | Type | Default |\n|---|---|---|\n")
				for range 3 + rng.IntN(4) {
					fmt.Fprintf(&sb, "| %s | %s | `%d` |\n", word(), word(), rng.IntN(1000))
				}
				sb.WriteString("\n")
			}
		}
		p := filepath.Join(dir, filepath.FromSlash(dirs[rng.IntN(len(dirs))]), fmt.Sprintf("%s%d.md", slug, i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkFrontMatterBuildVsWalkRead is BenchmarkBuildVsWalkRead on the front-matter corpus
// (goal: x_walk_read ≤ 1.3).
func BenchmarkFrontMatterBuildVsWalkRead(b *testing.B) {
	buildVsWalkRead(b, frontMatterCorpus(b), fmCorpusFiles)
}

// BenchmarkFrontMatterSearchVsRipgrep is BenchmarkSearchVsRipgrep on the front-matter corpus
// (goal: x_rg ≤ 0.5).
func BenchmarkFrontMatterSearchVsRipgrep(b *testing.B) {
	searchVsRipgrep(b, frontMatterCorpus(b), []benchQuery{
		{"literal", "vault storage", false},
		{"literal-ci", "certificate SECRET", true},
		{"regex", `policy \w+ role`, false},
	})
}

// BenchmarkParseFrontMatter decodes the front matter of 600 corpus-style blocks with
// parseFrontMatter and, in the same iteration, with yaml.v3 alone, checks that the answers
// agree, and reports the time per block of both and their ratio (x_yaml).
func BenchmarkParseFrontMatter(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 27))
	blocks := make([][]byte, 600)
	for i := range blocks {
		blocks[i] = []byte(fmBlock(rng, i, "Get-WidgetCache", "get-widgetcache"))
	}
	var ours, ref time.Duration
	for b.Loop() {
		t0 := time.Now()
		got := make([]frontMatter, len(blocks))
		for i, y := range blocks {
			got[i], _ = parseFrontMatter(y)
		}
		t1 := time.Now()
		for i, y := range blocks {
			var fm frontMatter
			if err := yaml.Unmarshal(y, &fm); err != nil || fm != got[i] {
				b.Fatalf("%q: parseFrontMatter %+v, yaml.v3 %+v (%v)", y, got[i], fm, err)
			}
		}
		ours += t1.Sub(t0)
		ref += time.Since(t1)
	}
	perBlock := float64(b.N * len(blocks))
	b.ReportMetric(float64(ours.Nanoseconds())/perBlock/1000, "µs/block")
	b.ReportMetric(float64(ref.Nanoseconds())/perBlock/1000, "µs/block_yaml")
	b.ReportMetric(float64(ours)/float64(ref), "x_yaml")
}
