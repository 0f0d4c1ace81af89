package expr

import (
	"sort"
	"strings"
)

// closeMatches returns up to three collection or category names close to name: within an edit
// distance of about a third of its length (a swap of neighbours counts once), or containing it (case-insensitively).
func (st *state) closeMatches(name string) []string {
	type cand struct {
		name string
		dist int
	}
	lower := strings.ToLower(name)
	limit := max(1, (len([]rune(name))+2)/3)
	var cs []cand
	consider := func(n string) {
		d := editDistance(lower, strings.ToLower(n))
		if d <= limit || (len(lower) >= 3 && strings.Contains(strings.ToLower(n), lower)) {
			cs = append(cs, cand{n, d})
		}
	}
	for _, n := range st.colOrder {
		consider(n)
	}
	for _, n := range st.catOrder {
		consider(n)
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// editDistance is the optimal-string-alignment distance between a and b, counted in runes:
// insertions, deletions, substitutions and transpositions of neighbours each cost one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
