package storetest

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/google/go-cmp/cmp"
)

// testServicePathsAgree sends the same random writes and deletes through Services over s with
// the optional interfaces present, hidden, one at a time, and with a ConditionalWriter that
// declines every write or ignores the limits; each variant is its own tenant. Every result,
// every error's full text (code, message, argument) and the projects' contents must be
// identical across the variants.
func testServicePathsAgree(t *testing.T, s driver.Store, checker, conditional bool) {
	type variant struct {
		name  string
		svc   *fileio.Service
		ctx   context.Context
		scope driver.Scope
	}
	stores := map[string]driver.Store{"native": s, "portable": WithoutOptional(s)}
	names := []string{"native", "portable"}
	add := func(name string, wrap func(driver.WriteTx) driver.WriteTx) {
		stores[name] = hidingStore{Store: s, wrap: wrap}
		names = append(names, name)
	}
	if checker && conditional {
		add("WriteChecker only", checkerOnly)
		add("ConditionalWriter only", conditionalOnly)
	}
	if conditional {
		add("declining ConditionalWriter", withConditional(func(in driver.ConditionalWriter) driver.ConditionalWriter { return decliningWriter{in} }))
		add("overeager ConditionalWriter", withConditional(func(in driver.ConditionalWriter) driver.ConditionalWriter { return overeagerWriter{in} }))
	}
	var variants []variant
	for _, name := range names {
		svc, err := fileio.NewService(stores[name], fileio.Options{Config: modelConfig()})
		if err != nil {
			t.Fatal(err)
		}
		ctx, scope := newTenant(proj)
		variants = append(variants, variant{name, svc, ctx, scope})
	}
	rng := rand.New(rand.NewSource(7))
	const ops = 300
	outcomes := map[string]int{}
	for i := 0; i < ops; i++ {
		path := modelPaths[rng.Intn(len(modelPaths))]
		var describe, label string
		results := make([]string, len(variants))
		if rng.Intn(8) == 0 {
			recursive := rng.Intn(2) == 0
			describe = fmt.Sprintf("delete %q recursive=%v", path, recursive)
			for v, vr := range variants {
				err := vr.svc.Delete(vr.ctx, fileio.DeleteRequest{Project: proj, Path: path, Recursive: recursive})
				results[v], label = outcome(struct{}{}, err), "delete "+codeOrOK(err)
			}
		} else {
			req := fileio.WriteRequest{
				Project:     proj,
				Path:        path,
				Content:     modelContents[rng.Intn(len(modelContents))],
				OffsetBytes: int64(rng.Intn(14)) - 1,
				Mode:        modelModes[rng.Intn(len(modelModes))],
				Exclusive:   rng.Intn(6) == 0,
			}
			describe = fmt.Sprintf("write %q %q offset=%d mode=%q exclusive=%v", req.Path, req.Content, req.OffsetBytes, req.Mode, req.Exclusive)
			for v, vr := range variants {
				res, err := vr.svc.Write(vr.ctx, req)
				if err == nil && res.UpdatedAt.IsZero() {
					t.Errorf("op %d %s: %s returned no UpdatedAt", i, describe, vr.name)
				}
				res.UpdatedAt = time.Time{} // differs between the variants' writes
				results[v], label = outcome(res, err), "write "+codeOrOK(err)
			}
		}
		outcomes[label]++
		for v := 1; v < len(variants); v++ {
			if results[v] != results[0] {
				t.Fatalf("op %d %s: %s gave\n\t%s\nbut %s gave\n\t%s", i, describe, variants[0].name, results[0], variants[v].name, results[v])
			}
		}
		if i%25 == 24 || i == ops-1 {
			want := snapshot(t, s, variants[0].scope)
			for _, vr := range variants[1:] {
				if diff := cmp.Diff(want, snapshot(t, s, vr.scope)); diff != "" {
					t.Fatalf("after op %d the %s project differs from the %s one (-%s +%s):\n%s", i, vr.name, variants[0].name, variants[0].name, vr.name, diff)
				}
			}
		}
	}
	if testing.Verbose() {
		t.Logf("%d operations through %d variants agreed; outcomes %v", ops, len(variants), outcomes)
	}
}

func codeOrOK(err error) string {
	if err == nil {
		return "OK"
	}
	return agentfiles.ErrorCode(err).String()
}

// outcome renders a result or the full text of an error for comparison.
func outcome(res any, err error) string {
	if err != nil {
		return "error " + err.Error()
	}
	return fmt.Sprintf("ok %+v", res)
}
