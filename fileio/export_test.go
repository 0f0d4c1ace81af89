package fileio

import (
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// GrepQuery returns the ContentQuery that Grep derives from a pattern.
func GrepQuery(pattern string, fixed, ignoreCase bool) (driver.ContentQuery, error) {
	m, err := compileLineMatcher(pattern, fixed, ignoreCase)
	if err != nil {
		return driver.ContentQuery{}, err
	}
	return m.query, nil
}

// MatchingLineNumbers returns the 1-based numbers of the lines of content that Grep reports.
func MatchingLineNumbers(pattern string, fixed, ignoreCase bool, content []byte) ([]int, error) {
	return MatchingLineNumbersInChunks(pattern, fixed, ignoreCase, content, 0)
}

// MatchingLineNumbersInChunks is MatchingLineNumbers with the expression run on chunks of
// about chunk bytes (0: the matcher's own size).
func MatchingLineNumbersInChunks(pattern string, fixed, ignoreCase bool, content []byte, chunk int) ([]int, error) {
	m, err := compileLineMatcher(pattern, fixed, ignoreCase)
	if err != nil {
		return nil, err
	}
	if chunk > 0 {
		m.chunk = chunk
	}
	var out []int
	line, counted := 1, 0
	m.matchingLines(content, 0, lineScan{match: func(start, end int) bool {
		for ; counted < start; counted++ {
			if content[counted] == '\n' {
				line++
			}
		}
		out = append(out, line)
		return true
	}})
	return out, nil
}
