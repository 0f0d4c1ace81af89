package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stream is a go test -json run of three packages: one passes (with a skipped test), one has a
// failing subtest, one fails to build.
const stream = `{"Action":"start","Package":"example.com/a"}
{"Action":"run","Package":"example.com/a","Test":"TestQuick"}
{"Action":"output","Package":"example.com/a","Test":"TestQuick","Output":"=== RUN   TestQuick\n"}
{"Action":"output","Package":"example.com/a","Test":"TestQuick","Output":"    a_test.go:9: a log line of a passing test\n"}
{"Action":"pass","Package":"example.com/a","Test":"TestQuick","Elapsed":0.5}
{"Action":"run","Package":"example.com/a","Test":"TestSkipped"}
{"Action":"output","Package":"example.com/a","Test":"TestSkipped","Output":"    a_test.go:20: needs the network\n"}
{"Action":"output","Package":"example.com/a","Test":"TestSkipped","Output":"--- SKIP: TestSkipped (0.00s)\n"}
{"Action":"skip","Package":"example.com/a","Test":"TestSkipped","Elapsed":0}
{"Action":"run","Package":"example.com/a","Test":"TestSlow"}
{"Action":"pass","Package":"example.com/a","Test":"TestSlow","Elapsed":12.25}
{"Action":"output","Package":"example.com/a","Output":"PASS\n"}
{"Action":"pass","Package":"example.com/a","Elapsed":13}
{"Action":"start","Package":"example.com/b"}
{"Action":"run","Package":"example.com/b","Test":"TestTable"}
{"Action":"run","Package":"example.com/b","Test":"TestTable/good"}
{"Action":"pass","Package":"example.com/b","Test":"TestTable/good","Elapsed":0.1}
{"Action":"run","Package":"example.com/b","Test":"TestTable/bad"}
{"Action":"output","Package":"example.com/b","Test":"TestTable/bad","Output":"=== RUN   TestTable/bad\n"}
{"Action":"output","Package":"example.com/b","Test":"TestTable/bad","Output":"    b_test.go:30: got 2, want 3\n"}
{"Action":"output","Package":"example.com/b","Test":"TestTable/bad","Output":"    --- FAIL: TestTable/bad (0.20s)\n"}
{"Action":"fail","Package":"example.com/b","Test":"TestTable/bad","Elapsed":0.2}
{"Action":"output","Package":"example.com/b","Test":"TestTable","Output":"--- FAIL: TestTable (0.30s)\n"}
{"Action":"fail","Package":"example.com/b","Test":"TestTable","Elapsed":0.3}
{"Action":"output","Package":"example.com/b","Output":"FAIL\n"}
{"Action":"fail","Package":"example.com/b","Elapsed":0.4}
{"ImportPath":"example.com/c","Action":"build-output","Output":"# example.com/c\n"}
{"ImportPath":"example.com/c","Action":"build-output","Output":"c.go:3:1: syntax error\n"}
{"ImportPath":"example.com/c","Action":"build-fail"}
{"Action":"start","Package":"example.com/c"}
{"Action":"output","Package":"example.com/c","Output":"FAIL\texample.com/c [build failed]\n"}
{"Action":"fail","Package":"example.com/c","Elapsed":0,"FailedBuild":"example.com/c"}
go: a message that is not JSON
`

const want = `ok   example.com/a	13.0s
    b_test.go:30: got 2, want 3
    --- FAIL: TestTable/bad (0.20s)
--- FAIL: TestTable (0.30s)
FAIL
FAIL example.com/b	0.4s
# example.com/c
c.go:3:1: syntax error
FAIL example.com/c [build failed]
go: a message that is not JSON

Time per package (go test runs packages in parallel):
    13.0s  pass example.com/a
     0.4s  fail example.com/b
     0.0s  fail example.com/c

The 2 slowest tests:
    12.2s  pass example.com/a TestSlow
     0.5s  pass example.com/a TestQuick

Skipped:
  example.com/a TestSkipped: a_test.go:20: needs the network

3 tests and subtests passed, 1 skipped, 2 failed
FAIL
`

func TestReport(t *testing.T) {
	var out strings.Builder
	failed, err := report(strings.NewReader(stream), &out, 2)
	if err != nil || !failed {
		t.Errorf("report = failed %v, error %v; want failed, no error", failed, err)
	}
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

func TestReportPassing(t *testing.T) {
	pass := `{"Action":"run","Package":"example.com/a","Test":"TestA"}
{"Action":"pass","Package":"example.com/a","Test":"TestA","Elapsed":0.01}
{"Action":"pass","Package":"example.com/a","Elapsed":0.02}
{"Action":"skip","Package":"example.com/d","Elapsed":0}
`
	var out strings.Builder
	failed, err := report(strings.NewReader(pass), &out, 10)
	if err != nil || failed {
		t.Errorf("report = failed %v, error %v; want neither", failed, err)
	}
	want := "ok   example.com/a\t0.0s\n?    example.com/d\t[no test files]\n\n" +
		"Time per package (go test runs packages in parallel):\n   < 1 s  pass 1 more packages\n\n" +
		"The 1 slowest tests:\n     0.0s  pass example.com/a TestA\n\n1 tests and subtests passed, 0 skipped, 0 failed\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}
