package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// summary accumulates the events of one go test -json stream.
type summary struct {
	output   map[string][]string // package → its lines not yet printed, by test ("" package level)
	tests    map[string]*testRun // package + "\x00" + test → the test
	packages []packageRun        // in the order they finished
	builds   map[string][]string // import path → build output
	failed   bool
	counts   map[string]int // pass, fail, skip of tests (subtests included)
}

// testRun is one test's output so far and its result.
type testRun struct {
	pkg, name string
	lines     []string
	action    string
	elapsed   float64
	finished  int // order of the result among all tests
}

// packageRun is one package's result.
type packageRun struct {
	name    string
	action  string // pass, fail, skip
	elapsed float64
}

func newSummary() *summary {
	return &summary{output: map[string][]string{}, tests: map[string]*testRun{}, builds: map[string][]string{}, counts: map[string]int{}}
}

func (s *summary) add(w io.Writer, e event) {
	switch e.Action {
	case "build-output":
		s.builds[e.ImportPath] = append(s.builds[e.ImportPath], e.Output)
		return
	case "build-fail":
		s.failed = true
		fmt.Fprint(w, strings.Join(s.builds[e.ImportPath], ""))
		delete(s.builds, e.ImportPath)
		return
	}
	if e.Test == "" {
		s.addPackage(w, e)
		return
	}
	key := e.Package + "\x00" + e.Test
	t := s.tests[key]
	if t == nil {
		t = &testRun{pkg: e.Package, name: e.Test}
		s.tests[key] = t
	}
	switch e.Action {
	case "output":
		if !isProgress(e.Output) {
			t.lines = append(t.lines, e.Output)
		}
	case "pass", "fail", "skip":
		t.action, t.elapsed = e.Action, e.Elapsed
		s.counts[e.Action]++
		t.finished = s.counts["pass"] + s.counts["fail"] + s.counts["skip"]
		if e.Action == "pass" {
			t.lines = nil // only the output of a failure, and a skip's reason, are printed
		}
	}
}

// isProgress reports whether a line is go test -v's progress (=== RUN and the like), which
// the report leaves out.
func isProgress(line string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(strings.TrimSpace(line), p) {
			return true
		}
	}
	return false
}

func (s *summary) addPackage(w io.Writer, e event) {
	switch e.Action {
	case "output":
		s.output[e.Package] = append(s.output[e.Package], e.Output)
		return
	case "pass", "fail", "skip":
	default:
		return
	}
	s.packages = append(s.packages, packageRun{name: e.Package, action: e.Action, elapsed: e.Elapsed})
	if e.Action == "fail" {
		s.failed = true
		s.printFailures(w, e.Package)
	}
	switch e.Action {
	case "pass":
		fmt.Fprintf(w, "ok   %s\t%.1fs\n", e.Package, e.Elapsed)
	case "skip":
		fmt.Fprintf(w, "?    %s\t[no test files]\n", e.Package)
	case "fail":
		if e.FailedBuild != "" {
			fmt.Fprintf(w, "FAIL %s [build failed]\n", e.Package)
		} else {
			fmt.Fprintf(w, "FAIL %s\t%.1fs\n", e.Package, e.Elapsed)
		}
	}
	delete(s.output, e.Package)
}

// printFailures prints the output of pkg's failed tests in the order they failed (a subtest
// before its parent, as go test does), and the package's own output (a panic, TestMain's
// messages).
func (s *summary) printFailures(w io.Writer, pkg string) {
	var failed []*testRun
	for _, t := range s.tests {
		if t.pkg == pkg && t.action == "fail" {
			failed = append(failed, t)
		}
	}
	slices.SortFunc(failed, func(a, b *testRun) int { return cmp.Compare(a.finished, b.finished) })
	for _, t := range failed {
		fmt.Fprint(w, strings.Join(t.lines, ""))
		t.lines = nil
	}
	// A test still running when the binary died (panic, timeout) never reported an action.
	for _, t := range s.tests {
		if t.pkg == pkg && t.action == "" {
			fmt.Fprintf(w, "--- unfinished: %s\n%s", t.name, strings.Join(t.lines, ""))
			t.lines = nil
		}
	}
	var own []string
	for _, l := range s.output[pkg] {
		if !isProgress(l) && strings.TrimSpace(l) != "PASS" && !strings.HasPrefix(l, "FAIL\t"+pkg) {
			own = append(own, l)
		}
	}
	fmt.Fprint(w, strings.Join(own, ""))
}

// finish prints the per-package times and the slowest top-level tests.
func (s *summary) finish(w io.Writer, slowest int) {
	pkgs := slices.Clone(s.packages)
	slices.SortStableFunc(pkgs, func(a, b packageRun) int { return cmp.Compare(b.elapsed, a.elapsed) })
	fmt.Fprintf(w, "\nTime per package (go test runs packages in parallel):\n")
	quick := 0
	for _, p := range pkgs {
		switch {
		case p.action == "skip":
		case p.elapsed < 1 && p.action == "pass":
			quick++
		default:
			fmt.Fprintf(w, "%8.1fs  %-4s %s\n", p.elapsed, p.action, p.name)
		}
	}
	if quick > 0 {
		fmt.Fprintf(w, "   < 1 s  pass %d more packages\n", quick)
	}
	var tops []*testRun
	for _, t := range s.tests {
		if !strings.Contains(t.name, "/") && t.action != "" {
			tops = append(tops, t)
		}
	}
	slices.SortFunc(tops, func(a, b *testRun) int {
		return cmp.Or(cmp.Compare(b.elapsed, a.elapsed), strings.Compare(a.pkg, b.pkg), strings.Compare(a.name, b.name))
	})
	fmt.Fprintf(w, "\nThe %d slowest tests:\n", min(slowest, len(tops)))
	for _, t := range tops[:min(slowest, len(tops))] {
		fmt.Fprintf(w, "%8.1fs  %-4s %s %s\n", t.elapsed, t.action, t.pkg, t.name)
	}
	var skipped []*testRun
	for _, t := range s.tests {
		if t.action == "skip" {
			skipped = append(skipped, t)
		}
	}
	slices.SortFunc(skipped, func(a, b *testRun) int { return cmp.Or(strings.Compare(a.pkg, b.pkg), strings.Compare(a.name, b.name)) })
	if len(skipped) > 0 {
		fmt.Fprintf(w, "\nSkipped:\n")
	}
	for _, t := range skipped {
		fmt.Fprintf(w, "  %s %s: %s\n", t.pkg, t.name, skipReason(t.lines))
	}
	fmt.Fprintf(w, "\n%d tests and subtests passed, %d skipped, %d failed\n", s.counts["pass"], s.counts["skip"], s.counts["fail"])
	if s.failed {
		fmt.Fprintln(w, "FAIL")
	}
}

// skipReason is the first line a skipped test logged (its t.Skip message, usually).
func skipReason(lines []string) string {
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "--- SKIP") {
			return l
		}
	}
	return "(no reason given)"
}
