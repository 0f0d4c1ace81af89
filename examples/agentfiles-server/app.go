package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/fileiotools"
	"github.com/agentfiles/agentfiles/adapters/memorytools"
	"github.com/agentfiles/agentfiles/adapters/searchtools"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memorytool"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/search"
)

// app is the assembled server: the file store, the services, the tool set and the background
// indexer. Build it with newApp, run the indexer with start, release everything with stop.
type app struct {
	tools   []adapters.Tool
	files   *fileio.Service
	store   driver.Store
	indexer *search.Indexer // nil when search is disabled
	setup   []string        // what runs where, for the start-up banner
	bundled string          // the extracted bundle (docs and catalog), or ""
	docDirs []string        // the documentation directories served (the default consult roots)
	closers []func()        // run in reverse order by stop

	// backends are what /healthz checks (health.go).
	backends []backendCheck
}

// newApp builds every tool family the flags ask for.
func newApp(ctx context.Context, c config, logger *slog.Logger) (_ *app, err error) {
	a := &app{}
	defer func() {
		if err != nil {
			a.close() // release what was opened before the failure
		}
	}()
	fcfg, scfg := fileio.DefaultConfig(), search.DefaultConfig()
	if c.configFile != "" {
		if fcfg, err = fileio.LoadConfigFile(c.configFile); err != nil {
			return nil, fmt.Errorf("-config %s: %w", c.configFile, err)
		}
		if scfg, err = search.LoadConfigFile(c.configFile); err != nil {
			return nil, fmt.Errorf("-config %s: %w", c.configFile, err)
		}
	}
	if err := a.openStore(ctx, c, logger); err != nil {
		return nil, err
	}
	// One token bucket per tenant covers the file operations and file_search alike.
	limiter := fileio.NewRateLimiter(fcfg.RateLimitPerSecond, fcfg.RateLimitBurst, nil)
	sw, err := a.buildSearch(ctx, c, scfg, limiter, logger)
	if err != nil {
		return nil, err
	}
	fopts := fileio.Options{Config: fcfg, Logger: logger, RateLimiter: limiter}
	if sw.vault != nil {
		fopts.CredentialSealer = sw.vault
	}
	if a.files, err = fileio.NewService(a.store, fopts); err != nil {
		return nil, fmt.Errorf("file service: %w", err)
	}
	a.tools = append(a.tools, fileiotools.Tools(a.files)...)
	// Anthropic's memory tool over the same files: /memories is the caller's project "memories".
	mem, err := memorytool.New(a.files, memorytool.Options{Project: memorytool.DefaultProject})
	if err != nil {
		return nil, fmt.Errorf("memory tool: %w", err)
	}
	a.tools = append(a.tools, memorytools.Tools(mem)...)
	if sw.searcher != nil {
		a.tools = append(a.tools, searchtools.Tools(sw.searcher)...)
	}
	if err := a.addDocs(ctx, c, logger); err != nil {
		return nil, err
	}
	if err := a.addCatalog(c, logger); err != nil {
		return nil, err
	}
	if err := a.addConsult(c, logger); err != nil {
		return nil, err
	}
	if err := checkUniqueNames(a.tools); err != nil {
		return nil, err
	}
	return a, nil
}

// openStore picks memstore, or pgstore with -database-url.
// The lock timeout and delete retention of the configuration reach the store through the file
// service (driver.UpdateOptions); the store has no copy of them.
func (a *app) openStore(ctx context.Context, c config, logger *slog.Logger) error {
	if c.databaseURL == "" {
		a.store = memstore.New(memstore.Options{})
		a.addBackend("store", "memory", nil)
		a.setup = append(a.setup, "files: in memory (gone when the server stops; -database-url keeps them in PostgreSQL)")
		return nil
	}
	st, err := pgstore.Open(ctx, c.databaseURL, pgstore.Options{Logger: logger, MaxConns: int32(min(c.databaseConns, math.MaxInt32)),
		GrepCacheBytes: grepCacheBytes(c.grepCacheMB)})
	if err != nil {
		// pgstore's errors never contain the URL's password; they name what failed.
		return fmt.Errorf("%s: %w", flagRef("database-url"), err)
	}
	a.store = st
	a.addBackend("store", "postgresql", pgCheck(st.Pool()))
	a.closers = append(a.closers, st.Close)
	a.setup = append(a.setup, "files: PostgreSQL (schema migrated; shared with every server on the same database)")
	return nil
}

// start runs the background indexer until stop.
func (a *app) start(ctx context.Context) {
	if a.indexer != nil {
		a.indexer.Start(ctx)
	}
}

// stop drains the indexer (jobs already claimed finish; ctx bounds the wait) and releases the
// store.
func (a *app) stop(ctx context.Context) error {
	var err error
	if a.indexer != nil {
		if e := a.indexer.Stop(ctx); e != nil {
			err = fmt.Errorf("draining the indexer: %w", e)
		}
	}
	a.close()
	return err
}

func (a *app) close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
	a.closers = nil
}

// checkUniqueNames refuses two tools with one name: the second would silently shadow the first.
func checkUniqueNames(tools []adapters.Tool) error {
	seen := map[string]bool{}
	for _, t := range tools {
		if seen[t.Name] {
			return errors.New("two tool sets define the tool " + t.Name)
		}
		seen[t.Name] = true
	}
	return nil
}

// grepCacheBytes is pgstore.Options.GrepCacheBytes for -grep-cache-mb: 0 for the default, a
// negative value for off.
func grepCacheBytes(mb int) int64 {
	if mb < 0 {
		return -1
	}
	return int64(min(mb, math.MaxInt64>>20)) << 20
}
