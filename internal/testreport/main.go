// Command testreport reads the output of `go test -json` and prints what a person reads: one
// line per package as it finishes, the output of every test that failed (and of a package that
// failed to build or crashed), then the time of each package and the slowest tests.
//
// # Use
//
//	go test -json ./... | tee test.json | go run ./internal/testreport
//	go run ./internal/testreport -slowest 20 < test.json   # again, from the saved stream
//
// It exits with status 1 when a test or a package failed, 0 otherwise. .ci/run uses it, so that
// CI's log stays as readable as `go test`'s and ends with where the time went.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	slowest := flag.Int("slowest", 10, "how many of the slowest tests to list")
	flag.Parse()
	if failed, err := report(os.Stdin, os.Stdout, *slowest); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	} else if failed {
		os.Exit(1)
	}
}

// event is one line of `go test -json` (cmd/test2json's TestEvent, with the build events of
// go test -json).
type event struct {
	Time        time.Time
	Action      string
	Package     string
	ImportPath  string // build-output, build-fail
	Test        string
	Elapsed     float64 // seconds
	Output      string
	FailedBuild string
}

// report reads the events from r, writes the report to w, and says whether anything failed.
func report(r io.Reader, w io.Writer, slowest int) (failed bool, err error) {
	s := newSummary()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line) // not an event: go test's own message
			continue
		}
		s.add(w, e)
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	s.finish(w, slowest)
	return s.failed, nil
}
