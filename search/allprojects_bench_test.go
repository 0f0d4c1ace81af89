package search_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/search"
)

// BenchmarkSearchAllProjects measures file_search with project "*" over 8 projects of 2,000
// chunks each (memstore, memindex, hashing embedder; every file indexed), against two references timed in the same
// loop: one of those projects alone ("one"), and the same 16,000 chunks in a single project
// ("merged"). It reports the mean of each and the ratios star/one and star/merged.
func BenchmarkSearchAllProjects(b *testing.B) {
	const projects, chunksPerProject, chunksPerFile = 8, 2000, 10
	s := newSynth(3)
	d := newDirectIndex()
	ac := agentfiles.NewAuthContext("bench-all", "")
	for p := range projects {
		for f := 0; f*chunksPerFile < chunksPerProject; f++ {
			content := s.paragraphs(chunksPerFile, 45)
			path := fmt.Sprintf("/dir%03d/file%05d.txt", f%100, f)
			d.put(b, driver.Scope{Tenant: ac.APIKeyHash, Project: fmt.Sprintf("p%d", p)}, path, content)
			d.put(b, driver.Scope{Tenant: ac.APIKeyHash, Project: "merged"}, fmt.Sprintf("/p%d%s", p, path), content)
		}
	}
	// Every file was indexed directly: complete the outbox's jobs, as the Indexer would, so that
	// no project has pending files.
	storetest.CompleteJobs(b, d.store)
	searcher := d.searcher(b)
	actx := agentfiles.WithAuth(context.Background(), ac)
	queries := s.queries(200)
	variants := []string{"p0", "*", "merged"}
	var total [3]time.Duration
	b.ResetTimer()
	for i := range b.N {
		q := queries[i%len(queries)]
		for v, project := range variants {
			start := time.Now()
			if _, err := searcher.Search(actx, search.Query{Project: project, Query: q, Limit: 10}); err != nil {
				b.Fatal(err)
			}
			total[v] += time.Since(start)
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(total[0]), "one-ms")
	b.ReportMetric(ms(total[1]), "star-ms")
	b.ReportMetric(ms(total[2]), "merged-ms")
	b.ReportMetric(float64(total[1])/float64(total[0]), "star/one")
	b.ReportMetric(float64(total[1])/float64(total[2]), "star/merged")
}
