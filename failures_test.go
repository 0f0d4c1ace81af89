package agentfiles_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/consult/openai"
	"github.com/agentfiles/agentfiles/fileid"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/agentfiles/agentfiles/search/provider"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

// failureEnv is one of everything that can meet the failures of TestOneCodePerFailure.
type failureEnv struct {
	files    *fileio.Service
	docs     *fileid.Registry
	searcher *search.Searcher
	failing  string // the URL of a provider that answers every request with HTTP 500
}

func newFailureEnv(t *testing.T) failureEnv {
	t.Helper()
	store := memstore.New(memstore.Options{})
	files, err := fileio.NewService(store, fileio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := files.Write(callerCtx(context.Background()), fileio.WriteRequest{Project: "p", Path: "/a.md", Content: "alpha beta\n"}); err != nil {
		t.Fatal(err)
	}
	docs, err := fileid.New(context.Background(), []fileid.Root{{Label: "docs", FS: fstest.MapFS{"a.md": {Data: []byte("# A\nalpha beta\n")}}}}, fileid.Options{})
	if err != nil {
		t.Fatal(err)
	}
	searcher, err := search.NewSearcher(store, memindex.New(), search.SearcherOptions{Embedder: search.NewHashingEmbedder(64)})
	if err != nil {
		t.Fatal(err)
	}
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"upstream overloaded"}}`, http.StatusInternalServerError)
	}))
	t.Cleanup(failing.Close)
	return failureEnv{files: files, docs: docs, searcher: searcher, failing: failing.URL}
}

func callerCtx(ctx context.Context) context.Context {
	return agentfiles.WithAuth(ctx, agentfiles.NewAuthContext("k", "test"))
}

// ended returns a caller's context that has already ended: past its deadline, or canceled.
func ended(t *testing.T, deadline bool) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	if deadline {
		ctx, cancel = context.WithTimeout(context.Background(), -1)
	}
	cancel()
	return callerCtx(ctx)
}

// TestOneCodePerFailure provokes each failure through every package that can meet it and
// expects one code for it, whichever package reports it: a package that drifts to a code of
// its own fails here. (The PostgreSQL backends share one SQLSTATE table, internal/pgpool's
// Classify, whose statement timeout is TIMEOUT; fileio/pgstore's TestStatementTimeout and
// search/pgindex's TestStatementTimeout provoke it through each.)
func TestOneCodePerFailure(t *testing.T) {
	env := newFailureEnv(t)
	ctx := callerCtx(context.Background())
	embed := func(ctx context.Context) error {
		e, err := provider.NewOpenAIEmbedder(env.failing+"/v1/embeddings", "m", 8, provider.OpenAIEmbedderOptions{
			Credential: func(context.Context) (string, error) { return "sk-test", nil }})
		if err == nil {
			_, err = e.Embed(ctx, []string{"x"})
		}
		return err
	}
	rerank := func(ctx context.Context) error {
		r, err := provider.NewCohereReranker(env.failing+"/v1/rerank", provider.CohereRerankerOptions{
			Credential: func(context.Context) (string, error) { return "sk-test", nil }})
		if err == nil {
			_, err = r.Rerank(ctx, "q", []string{"a", "b"}, 2)
		}
		return err
	}
	complete := func(ctx context.Context) error {
		m, err := openai.New("m", openai.Options{BaseURL: env.failing, APIKey: "sk-test"})
		if err == nil {
			_, err = m.Complete(ctx, consult.Prompt{User: "hi"})
		}
		return err
	}
	grep := func(ctx context.Context, pattern, glob string) error {
		_, err := env.files.Grep(ctx, fileio.GrepRequest{Project: "p", Pattern: pattern, Glob: glob})
		return err
	}
	searchFiles := func(ctx context.Context, query, glob string) error {
		_, err := env.searcher.Search(ctx, search.Query{Project: "p", Query: query, Glob: glob})
		return err
	}
	searchDocs := func(ctx context.Context, query string) error {
		_, err := env.docs.Search(ctx, fileid.SearchRequest{Query: query})
		return err
	}
	read := func(ctx context.Context) error {
		_, err := env.files.Read(ctx, fileio.ReadRequest{Project: "p", Path: "/a.md"})
		return err
	}
	toolError := func(err error) error { // what an adapter makes of an uncoded failure
		te, _ := adapters.ErrorOf(err)
		return agentfiles.NewError(agentfiles.NewCode(te.Code, te.Kind), te.Message, "")
	}
	ctxCases := func(deadline bool) map[string]func() error {
		return map[string]func() error{
			"fileio.Service.ReadFile": func() error { return read(ended(t, deadline)) },
			"fileio.Service.Grep":     func() error { return grep(ended(t, deadline), "alpha", "") },
			"fileid.Registry.Search":  func() error { return searchDocs(ended(t, deadline), "alpha") },
			"search.Searcher.Search":  func() error { return searchFiles(ended(t, deadline), "alpha", "") },
			"provider.OpenAIEmbedder": func() error { return embed(ended(t, deadline)) },
			"provider.CohereReranker": func() error { return rerank(ended(t, deadline)) },
			"consult/openai.Model":    func() error { return complete(ended(t, deadline)) },
			"adapters.ErrorOf":        func() error { return toolError(ended(t, deadline).Err()) },
			"agentfiles.ContextError": func() error { return agentfiles.ContextError(ended(t, deadline).Err()) },
		}
	}
	failures := []struct {
		failure string
		want    agentfiles.Code
		via     map[string]func() error
	}{
		{"a regular expression that does not compile", agentfiles.CodeInvalidPattern, map[string]func() error{
			"fileio.Service.Grep":    func() error { return grep(ctx, "a(b", "") },
			"fileid.Registry.Search": func() error { return searchDocs(ctx, "a(b") },
		}},
		{"a glob that does not compile", agentfiles.CodeInvalidPattern, map[string]func() error{
			"fileio.Service.Grep": func() error { return grep(ctx, "alpha", "[a") },
			"fileio.Service.Glob": func() error {
				_, err := env.files.Glob(ctx, fileio.GlobRequest{Project: "p", Pattern: "[a"})
				return err
			},
			"search.Searcher.Search": func() error { return searchFiles(ctx, "alpha", "[a") },
		}},
		{"an empty query", agentfiles.CodeInvalidQuery, map[string]func() error{
			"fileid.Registry.Search": func() error { return searchDocs(ctx, "") },
			"search.Searcher.Search": func() error { return searchFiles(ctx, "", "") },
		}},
		{"a deadline that passed", agentfiles.CodeTimeout, ctxCases(true)},
		{"a caller that went away", agentfiles.CodeCanceled, ctxCases(false)},
		{"an outside provider that fails", agentfiles.CodeModelError, map[string]func() error{
			"provider.OpenAIEmbedder": func() error { return embed(ctx) },
			"provider.CohereReranker": func() error { return rerank(ctx) },
			"consult/openai.Model":    func() error { return complete(ctx) },
		}},
	}
	for _, f := range failures {
		t.Run(f.failure, func(t *testing.T) {
			want, got := map[string]string{}, map[string]string{}
			for via, call := range f.via {
				want[via] = f.want.String()
				err := call()
				got[via] = agentfiles.ErrorCode(err).String()
				if err == nil {
					got[via] = "no error"
				}
				if e := (*agentfiles.Error)(nil); err != nil && (!errors.As(err, &e) || e.Message == "") {
					t.Errorf("%s: %v is not a coded error with a message", via, err)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: codes by package (-want +got):\n%s", f.failure, diff)
			}
		})
	}
}

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestStatementTimeoutIsOneCode: a statement that outlives its statement timeout is TIMEOUT in
// both PostgreSQL backends, the file store and the search index on one pool, whose SQLSTATEs
// one table classifies. Every table is locked by another transaction, so each call waits until
// PostgreSQL cancels its statement (SQLSTATE 57014).
func TestStatementTimeoutIsOneCode(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.New(t)
	// The statements below wait on a lock until their timeout, whatever it is; opening the store
	// and the index runs statements under it too, which must not hit it on a loaded machine.
	const timeout = 5 * time.Second
	store := pgtest.Open(t, dbURL, pgstore.Open, pgstore.Options{StatementTimeout: timeout})
	index, err := pgindex.New(ctx, store.Pool(), pgindex.Options{StatementTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer index.Close()
	// The call's own budget ends a call that waits longer than the statements' timeout: twice
	// that, rather than the default 30 s.
	cfg := fileio.DefaultConfig()
	cfg.CallTimeout = 2 * timeout
	files, err := fileio.NewService(store, fileio.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	caller := callerCtx(ctx)
	if _, err := files.Write(caller, fileio.WriteRequest{Project: "p", Path: "/a.md", Content: "retry with backoff\n"}); err != nil {
		t.Fatal(err)
	}

	locker, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	rows, err := tx.Query(ctx, `SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'mcp\_%'`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) == 0 {
		t.Fatalf("tables: %v, %v", tables, err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE "+strings.Join(tables, ", ")+" IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}

	scope := driver.Scope{Tenant: agentfiles.NewAuthContext("k", "").TenantID(), Project: "p"}
	got := map[string]string{}
	_, err = files.Read(caller, fileio.ReadRequest{Project: "p", Path: "/a.md"})
	got["fileio/pgstore"] = agentfiles.ErrorCode(err).String()
	_, err = index.Lexical(ctx, scope, indexdriver.LexicalQuery{Terms: indexdriver.QueryTerms("backoff"), BM25: indexdriver.DefaultBM25(), TopK: 10})
	got["search/pgindex"] = agentfiles.ErrorCode(err).String()
	want := map[string]string{"fileio/pgstore": "TIMEOUT", "search/pgindex": "TIMEOUT"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a statement past its timeout, codes by backend (-want +got):\n%s", diff)
	}
}
