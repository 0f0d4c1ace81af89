// Command embedderworker is a test helper: one server process of the embedder-identity tests of
// package pgindex. It opens a fileio/pgstore Store and a pgindex Index on -url with a hashing
// embedder of -dims dimensions (renamed -model when given; -dims 0: lexical-only, no embedder),
// declaring the embedder's identity in pgindex.Options unless -declare=false, and runs a
// search.Indexer over the store's outbox when told to. With -reembed it opens the Index without
// an identity and switches the database to its embedder with Index.Reembed first.
//
// It answers on stdout with one JSON line (a Reply) per step: one when it is ready or Open
// failed (then it exits 2), then one per command read from stdin:
//
//	index          drain the outbox (ProcessBatch until no job is claimed); Reply.Indexer
//	semantic TEXT  Index.Semantic with the embedder's vector of TEXT; Reply.Paths
//	lexical TEXT   Index.Lexical with the query terms of TEXT; Reply.Paths
//	recorded       Index.RecordedEmbedder; Reply.Recorded
//
// It exits 0 at the end of stdin. It is not part of the library.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

// Reply is one line of output.
type Reply struct {
	Ready    bool                      `json:"ready,omitempty"`
	Error    *ErrorReply               `json:"error,omitempty"`
	Recorded *pgindex.EmbedderIdentity `json:"recorded,omitempty"`
	Reembed  *pgindex.ReembedStats     `json:"reembed,omitempty"`
	Indexer  *search.IndexerStats      `json:"indexer,omitempty"`
	Paths    []string                  `json:"paths,omitempty"`
}

// ErrorReply is an error with its agentfiles code.
type ErrorReply struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// renamed is an embedder that makes another's vectors under another model name.
type renamed struct {
	search.Embedder
	model string
}

func (r renamed) Model() string { return r.model }

func main() {
	url := flag.String("url", "", "database URL")
	dims := flag.Int("dims", 64, "hashing embedder dimensions (0: lexical-only)")
	model := flag.String("model", "", "model name for the hashing vectors (default the hashing embedder's)")
	declare := flag.Bool("declare", true, "pass the embedder identity in pgindex.Options")
	reembed := flag.Bool("reembed", false, "switch the database to this embedder with Index.Reembed before serving")
	key := flag.String("key", "", "caller API key whose tenant the semantic and lexical commands query")
	project := flag.String("project", "", "project the semantic and lexical commands query")
	flag.Parse()
	out := json.NewEncoder(os.Stdout)
	if err := run(*url, *dims, *model, *declare, *reembed, driver.Scope{Tenant: agentfiles.NewAuthContext(*key, "").APIKeyHash, Project: *project}, out); err != nil {
		fmt.Fprintln(os.Stderr, "embedderworker:", err)
		os.Exit(1)
	}
}

func errorReply(err error) *Reply {
	return &Reply{Error: &ErrorReply{Code: agentfiles.ErrorCode(err).String(), Message: err.Error()}}
}

func run(url string, dims int, model string, declare, reembed bool, scope driver.Scope, out *json.Encoder) error {
	ctx := context.Background()
	var emb search.Embedder
	if dims > 0 {
		emb = search.NewHashingEmbedder(dims)
		if model != "" {
			emb = renamed{Embedder: emb, model: model}
		}
	}
	store, err := pgstore.Open(ctx, url, pgstore.Options{PollInterval: 50 * time.Millisecond})
	if err != nil {
		return err
	}
	defer store.Close()
	opts := pgindex.Options{}
	if declare && !reembed {
		opts.Embedder = pgindex.IdentityOf(emb)
	}
	idx, err := pgindex.Open(ctx, url, opts)
	var coded *agentfiles.Error
	if errors.As(err, &coded) {
		out.Encode(errorReply(err))
		os.Exit(2)
	}
	if err != nil {
		return err
	}
	defer idx.Close()
	ready := &Reply{Ready: true}
	if reembed {
		st, err := idx.Reembed(ctx, emb, pgindex.ReembedOptions{Content: pgindex.StoreContent(store)})
		if err != nil {
			return err
		}
		ready.Reembed = &st
	}
	ixr, err := search.NewIndexer(store, idx, search.IndexerOptions{Embedder: emb, Workers: 1, BatchSize: 16, RetryMax: -1})
	if err != nil {
		return err
	}
	if err := out.Encode(ready); err != nil {
		return err
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		cmd, arg, _ := strings.Cut(in.Text(), " ")
		reply, err := serve(ctx, idx, ixr, emb, scope, cmd, arg)
		if err != nil {
			reply = errorReply(err)
		}
		if err := out.Encode(reply); err != nil {
			return err
		}
	}
	return in.Err()
}

func serve(ctx context.Context, idx *pgindex.Index, ixr *search.Indexer, emb search.Embedder, scope driver.Scope, cmd, arg string) (*Reply, error) {
	switch cmd {
	case "index":
		for {
			n, err := ixr.ProcessBatch(ctx)
			if err != nil {
				return nil, err
			}
			if n == 0 {
				st := ixr.Stats()
				return &Reply{Indexer: &st}, nil
			}
		}
	case "semantic":
		if emb == nil {
			return nil, errors.New("semantic needs an embedder")
		}
		vecs, err := emb.Embed(ctx, []string{arg})
		if err != nil {
			return nil, err
		}
		cands, err := idx.Semantic(ctx, scope, indexdriver.SemanticQuery{Vector: vecs[0], Model: emb.Model(), TopK: 20})
		return &Reply{Paths: paths(cands)}, err
	case "lexical":
		res, err := idx.Lexical(ctx, scope, indexdriver.LexicalQuery{Terms: indexdriver.QueryTerms(arg), BM25: indexdriver.DefaultBM25(), TopK: 20})
		return &Reply{Paths: paths(res.Candidates)}, err
	case "recorded":
		id, err := idx.RecordedEmbedder(ctx)
		return &Reply{Recorded: &id}, err
	}
	return nil, fmt.Errorf("unknown command %q", cmd)
}

// paths lists the distinct paths of cands in order.
func paths(cands []indexdriver.Candidate) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, c := range cands {
		if !seen[c.Path] {
			seen[c.Path] = true
			out = append(out, c.Path)
		}
	}
	return out
}
