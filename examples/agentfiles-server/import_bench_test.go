package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/grepbench"
	"github.com/agentfiles/agentfiles/internal/pgtest"
)

// BenchmarkServerImport is the comparison as a platform makes it, through the server
// on PostgreSQL: PUT /archive/{project} of a tar of the corpus against the same files sent
// as file_write calls to POST /tools/file_write by 8 concurrent clients (x_faster: writes'
// time / import's time). The corpus is AGENTFILES_ARCHIVE_BENCH_FILES files of generated
// prose (default 3,000, about 10 KB each). The server runs with its defaults except what would
// otherwise decide the comparison: the per-tenant rate limit (100 calls/s by default, which
// alone would make 30,000 writes take 5 minutes) and the project quota are lifted, and file
// search is off (its indexer would compete for the CPUs with both sides alike).
func BenchmarkServerImport(b *testing.B) {
	n := 3000
	if v, err := strconv.Atoi(os.Getenv("AGENTFILES_ARCHIVE_BENCH_FILES")); err == nil && v > 0 {
		n = v
	}
	files := grepbench.NewProse(n, int64(n)*10<<10, 1).Files
	var archive bytes.Buffer
	grepbench.Tar(b, &archive, files)
	dir := b.TempDir()
	tokens, config := filepath.Join(dir, "tokens"), filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(tokens, []byte("bench-key bench\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	yaml := `settings:
  mcp:
    files:
      max_project_bytes: 17179869184
      max_archive_bytes: 17179869184
      archive_timeout_ms: 3600000
      rate_limit_per_second: 1000000
      rate_limit_burst: 1000000
      search:
        enabled: false
`
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		b.Fatal(err)
	}
	srv := startServer(b, "-token-file", tokens, "-config", config, "-log-level", "off", "-database-url", pgtest.New(b))
	b.Logf("corpus: %d files, %d bytes", len(files), grepbench.Bytes(files))
	var importTime, writeTime time.Duration
	for i := 0; b.Loop(); i++ {
		req, _ := http.NewRequest(http.MethodPut, fmt.Sprintf("%s/archive/import-%d", srv.base, i), bytes.NewReader(archive.Bytes()))
		req.Header.Set("Authorization", "Bearer bench-key")
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var res struct{ Files int }
		err = json.NewDecoder(resp.Body).Decode(&res)
		resp.Body.Close()
		importTime += time.Since(start)
		if err != nil || resp.StatusCode != http.StatusOK || res.Files != len(files) {
			b.Fatalf("PUT /archive: %d, %d files, %v", resp.StatusCode, res.Files, err)
		}

		start = time.Now()
		project := fmt.Sprintf("write-%d", i)
		err = grepbench.Each(files, 8, func(f grepbench.File) error {
			r, err := doAPI(srv.base, "bench-key", "file_write", map[string]any{"project": project, "path": f.Path, "content": string(f.Content)})
			if err == nil && r.Status != http.StatusOK {
				err = fmt.Errorf("file_write %s: %d %s", f.Path, r.Status, r.Raw)
			}
			return err
		})
		writeTime += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(importTime.Seconds()/float64(b.N), "s/import")
	b.ReportMetric(writeTime.Seconds()/float64(b.N), "s/file_write_8")
	b.ReportMetric(writeTime.Seconds()/importTime.Seconds(), "x_faster")
}
