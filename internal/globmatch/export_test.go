package globmatch

// MatchSteps returns whether g matches name and the steps the matcher took.
func MatchSteps(g *Glob, name string) (bool, int) {
	ok, steps := matchSegments(g.segments, name)
	return ok != g.negated, steps
}
