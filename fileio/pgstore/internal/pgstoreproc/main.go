// Command pgstoreproc is a test helper: one process of a multi-process test of package pgstore.
// It opens a pgstore.Store on -url (migrating the schema) and, depending on -mode:
//
//	migrate  only opens the store (concurrent start-up of many instances)
//	append   appends -n records "<writer>:<i>;" to -path through a fileio.Service
//	fill     creates files of -chunk bytes until the project quota (-quota) refuses one
//	shell    runs -n file_shell commands that each add 1 to the number in /counter and append
//	         "<writer>:<i>" to -path, running a command again when it fails with CONFLICT
//
// -grep-index-interval sets the store's Options.GrepIndexInterval (its background indexer for
// grep). It waits until -start (Unix nanoseconds) so that processes begin together, and prints one
// line "ok <successful writes>" on success. It is not part of the library.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/shell"
)

func main() {
	url := flag.String("url", "", "database URL")
	mode := flag.String("mode", "migrate", "migrate, append, fill or shell")
	apiKey := flag.String("key", "pgstoreproc", "API key of the tenant")
	project := flag.String("project", "proj", "project")
	path := flag.String("path", "/log.txt", "file to append to (append)")
	writer := flag.String("writer", "w", "writer name written into each record (append)")
	n := flag.Int("n", 1000, "number of appends (append)")
	quota := flag.Int64("quota", 1<<20, "project quota in bytes (fill)")
	chunk := flag.Int("chunk", 1000, "bytes per file (fill)")
	start := flag.Int64("start", 0, "Unix time in nanoseconds to start at")
	grepIndexInterval := flag.Duration("grep-index-interval", 0, "pgstore.Options.GrepIndexInterval")
	flag.Parse()
	if err := run(*url, *mode, *apiKey, *project, *path, *writer, *n, *quota, *chunk, *start, *grepIndexInterval); err != nil {
		fmt.Fprintln(os.Stderr, "pgstoreproc:", err)
		os.Exit(1)
	}
}

func run(url, mode, apiKey, project, path, writer string, n int, quota int64, chunk int, start int64, grepIndexInterval time.Duration) error {
	ctx := context.Background()
	if d := time.Until(time.Unix(0, start)); d > 0 {
		time.Sleep(d)
	}
	store, err := pgstore.Open(ctx, url, pgstore.Options{GrepIndexInterval: grepIndexInterval})
	if err != nil {
		return err
	}
	defer store.Close()
	cfg := fileio.DefaultConfig()
	cfg.RateLimitPerSecond = 0
	cfg.LockTimeout = time.Minute // two processes contend for one project's lock all the time
	cfg.MaxProjectBytes = quota
	cfg.MaxFileBytes = min(cfg.MaxFileBytes, quota)
	cfg.MaxPayloadBytes = min(cfg.MaxPayloadBytes, cfg.MaxFileBytes)
	svc, err := fileio.NewService(store, fileio.Options{Config: cfg})
	if err != nil {
		return err
	}
	ctx = agentfiles.WithAuth(ctx, agentfiles.NewAuthContext(apiKey, "pgstoreproc"))
	ok := 0
	switch mode {
	case "migrate":
	case "append":
		for i := 0; i < n; i++ {
			rec := fmt.Sprintf("%s:%d;", writer, i)
			if _, err := svc.Write(ctx, fileio.WriteRequest{Project: project, Path: path, Content: rec}); err != nil {
				return fmt.Errorf("append %d: %w", i, err)
			}
			ok++
		}
	case "fill":
		content := strings.Repeat("x", chunk)
		for i := 0; ; i++ {
			_, err := svc.Write(ctx, fileio.WriteRequest{Project: project, Path: fmt.Sprintf("/%s-%d", writer, i), Content: content})
			if agentfiles.ErrorCode(err) == fileio.CodeQuotaExceeded {
				break
			}
			if err != nil {
				return fmt.Errorf("fill %d: %w", i, err)
			}
			ok++
		}
	case "shell":
		sh := shell.New(svc, shell.Options{})
		for i := 0; i < n; i++ {
			cmd := fmt.Sprintf("read n < /counter || n=0; echo $((n+1)) > /counter; echo %s:%d >> %s", writer, i, path)
			for {
				_, err := sh.Run(ctx, shell.Request{Project: project, Command: cmd})
				if code := agentfiles.ErrorCode(err); err != nil && (code == fileio.CodeConflict || code == agentfiles.CodeResourceBusy) {
					continue
				}
				if err != nil {
					return fmt.Errorf("shell %d: %w", i, err)
				}
				break
			}
			ok++
		}
	default:
		return fmt.Errorf("unknown -mode %q", mode)
	}
	fmt.Printf("ok %d\n", ok)
	return nil
}
