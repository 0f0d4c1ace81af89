package grepbench

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Prose is a generated documentation set: Markdown files whose words follow a Zipf
// distribution (the shape of natural-language word frequencies), with headings, lists, code
// blocks, links and dates, some words and paths with non-ASCII letters and spaces. It is the
// corpus for measuring grep on text it was not tuned on: nothing in it is Go source, its
// byte frequencies are those of prose, and the same seed gives the same files on every
// machine.
type Prose struct {
	Files []File
	words []string
	df    []int // df[w]: files in which words[w] occurs
}

// commonWords open the vocabulary, most frequent first, so that the most frequent bytes are
// those of English text.
var commonWords = strings.Fields(`the of and to a in is that for it as with was on be by this are or
from at an not which you can have will if but all one has more when their there use each other
these new its also may should must than then into only value file files project data using see
example returns set default name time first page user request`)

// syllables build the rest of the vocabulary; a few carry letters outside ASCII.
var syllables = strings.Fields(`ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo ga ge go
ha he hi ho ka ke ki ko la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro
ru sa se si so su ta te ti to tu va ve vi vo wa we ya yo za ze ton ter ing ment tion str ex in
con pro ver al er an en or ar ic ous ble`)

var accented = strings.Fields(`é è ü ö ä ß ñ ø å ç`)

// NewProse generates files Markdown files of about totalBytes together (sizes vary around
// the mean by a log-normal factor), deterministically from seed.
func NewProse(files int, totalBytes int64, seed uint64) *Prose {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	p := &Prose{}
	seen := map[string]bool{}
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			p.words = append(p.words, w)
		}
	}
	for _, w := range commonWords {
		add(w)
	}
	for len(p.words) < 50000 {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			b.WriteString(syllables[r.IntN(len(syllables))])
		}
		if r.IntN(40) == 0 {
			b.WriteString(accented[r.IntN(len(accented))])
			b.WriteString(syllables[r.IntN(len(syllables))])
		}
		add(b.String())
	}
	p.df = make([]int, len(p.words))
	lastFile := make([]int, len(p.words))
	zipf := rand.NewZipf(r, 1.07, 2.7, uint64(len(p.words)-1))
	mean := float64(totalBytes) / float64(max(files, 1))
	g := &proseWriter{r: r, zipf: zipf, words: p.words, onWord: func(w int, file int) {
		if lastFile[w] != file+1 {
			lastFile[w] = file + 1
			p.df[w]++
		}
	}}
	p.Files = make([]File, files)
	for i := range files {
		size := int(mean * math.Exp(r.NormFloat64()*0.8-0.32))
		size = min(max(size, 200), 512<<10)
		g.file = i
		p.Files[i] = File{Path: g.path(i), Content: g.document(size)}
	}
	return p
}

// Word returns an ASCII word of at least six letters that occurs in the share of files
// nearest to fraction (0.01: about one file in a hundred). The share counts whole words; a
// grep for it may also find it inside longer words.
func (p *Prose) Word(fraction float64) string {
	want := fraction * float64(len(p.Files))
	best, bestDiff := "", math.Inf(1)
	for w, word := range p.words {
		if len(word) < 6 || !isASCII(word) || p.df[w] == 0 {
			continue
		}
		if d := math.Abs(float64(p.df[w]) - want); d < bestDiff {
			best, bestDiff = word, d
		}
	}
	return best
}

func isASCII(s string) bool { return utf8.RuneCountInString(s) == len(s) }

// proseWriter writes one document at a time.
type proseWriter struct {
	r      *rand.Rand
	zipf   *rand.Zipf
	words  []string
	onWord func(w, file int)
	file   int
	b      []byte
}

func (g *proseWriter) word() string {
	w := int(g.zipf.Uint64())
	g.onWord(w, g.file)
	return g.words[w]
}

// path is a path below /docs: a section, a topic and a name of one to three words, some
// joined by spaces.
func (g *proseWriter) path(i int) string {
	sep := "-"
	if g.r.IntN(10) == 0 {
		sep = " "
	}
	name := g.word()
	for range g.r.IntN(3) {
		name += sep + g.word()
	}
	return "/docs/s" + strconv.Itoa(g.r.IntN(24)) + "/" + g.words[100+g.r.IntN(400)] + "/" + name + "-" + strconv.Itoa(i) + ".md"
}

// document returns about size bytes of Markdown.
func (g *proseWriter) document(size int) []byte {
	g.b = g.b[:0]
	g.b = append(g.b, "# "...)
	g.sentence(3+g.r.IntN(5), false)
	g.b = append(g.b, "\n\n"...)
	for len(g.b) < size {
		switch k := g.r.IntN(20); {
		case k == 0:
			g.b = append(g.b, "## "...)
			g.sentence(2+g.r.IntN(5), false)
			g.b = append(g.b, "\n\n"...)
		case k <= 2:
			for range 2 + g.r.IntN(5) {
				g.b = append(g.b, "- "...)
				g.sentence(4+g.r.IntN(10), true)
				g.b = append(g.b, '\n')
			}
			g.b = append(g.b, '\n')
		case k == 3:
			g.code()
		default:
			for range 2 + g.r.IntN(6) {
				g.sentence(6+g.r.IntN(20), true)
				g.b = append(g.b, ' ')
			}
			g.b[len(g.b)-1] = '\n'
			g.b = append(g.b, '\n')
		}
	}
	return append([]byte(nil), g.b...)
}

// sentence appends n words, capitalized, with the occasional link, inline code or date.
func (g *proseWriter) sentence(n int, period bool) {
	for i := range n {
		if i > 0 {
			g.b = append(g.b, ' ')
		}
		w := g.word()
		switch k := g.r.IntN(60); {
		case k == 0:
			g.b = append(g.b, '[')
			g.b = append(g.b, w...)
			g.b = append(g.b, "](https://example.org/"...)
			g.b = append(g.b, g.word()...)
			g.b = append(g.b, '/')
			g.b = append(g.b, g.word()...)
			g.b = append(g.b, ')')
		case k == 1:
			g.b = append(g.b, '`')
			g.b = append(g.b, w...)
			g.b = append(g.b, '_')
			g.b = append(g.b, g.word()...)
			g.b = append(g.b, '`')
		case k == 2 && g.r.IntN(200) == 0:
			g.b = append(g.b, strconv.Itoa(1990+g.r.IntN(40))...)
			g.b = append(g.b, '-')
			g.b = append(g.b, strconv.Itoa(10 + g.r.IntN(3))[1:]...)
			g.b = append(g.b, strconv.Itoa(1+g.r.IntN(9))...)
		case i == 0:
			if c := w[0]; c >= 'a' && c <= 'z' {
				g.b = append(g.b, c-'a'+'A')
				g.b = append(g.b, w[1:]...)
				continue
			}
			g.b = append(g.b, w...)
		default:
			g.b = append(g.b, w...)
		}
	}
	if period {
		g.b = append(g.b, '.')
	}
}

// code appends a fenced block of a few assignment and call lines.
func (g *proseWriter) code() {
	g.b = append(g.b, "```\n"...)
	for range 2 + g.r.IntN(8) {
		g.b = append(g.b, g.word()...)
		g.b = append(g.b, '_')
		g.b = append(g.b, g.word()...)
		g.b = append(g.b, " = "...)
		g.b = append(g.b, g.word()...)
		g.b = append(g.b, '(')
		g.b = append(g.b, strconv.Itoa(g.r.IntN(1000))...)
		g.b = append(g.b, ")\n"...)
	}
	g.b = append(g.b, "```\n\n"...)
}
