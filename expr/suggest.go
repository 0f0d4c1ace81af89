package expr

import (
	"sort"
	"strings"
)

// closeMatches returns up to three collection or category names close to name: within an edit
// distance of about a third of its length, or containing it (case-insensitively).
func (st *state) closeMatches(name string) []string {
	type cand struct {
		name string
		dist int
	}
	lower := strings.ToLower(name)
	limit := max(1, len([]rune(name))/3)
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

// editDistance is the Levenshtein distance between a and b, counted in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
