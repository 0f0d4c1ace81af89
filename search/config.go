package search

import (
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/settingsdoc"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/vault"
	"gopkg.in/yaml.v3"
)

// Config holds the settings.mcp.files.search, .index and .security keys of the service
// configuration file, the keys that tune retrieval and indexing, plus a few of our own (marked "ours"). Load it with
// [LoadConfig] from the same YAML file as fileio's core keys; [DefaultConfig] gives every default
// (the zero Config does not: in the file, 0 means none where a key allows it).
//
// A Config describes the file; its methods hand each part to what it configures:
//
//	searcher, err := search.NewSearcher(store, index, cfg.SearcherOptions())  // plus Embedder, Reranker, Logger
//	indexer, err := search.NewIndexer(store, index, cfg.IndexerOptions())     // plus Embedder, Credentials, Logger
//	reranker, err := provider.NewCohereReranker(cfg.Search.Rerank.Endpoint, provider.RerankOptions(cfg.Search.Rerank))
//	v, err := vault.New(cfg.Security.EncryptionKEKs, cfg.Security.VaultOptions()) // plus Store, Logger
type Config struct {
	Search   SearchConfig
	Index    IndexConfig
	Security SecurityConfig
}

// SearchConfig is settings.mcp.files.search.
type SearchConfig struct {
	Enabled          bool // enabled (default true)
	LimitDefault     int  // limit_default: results when the caller gives no limit (default 5)
	LimitMax         int  // limit_max: the hard maximum; larger requests are clamped (default 20)
	VectorCandidates int  // vector_candidates: semantic candidates before merging (default 30)
	BM25Candidates   int  // bm25_candidates: lexical candidates before merging (default 30)
	Rerank           RerankConfig
	Fallback         FallbackConfig
	BM25             indexdriver.BM25 // bm25.k1 / bm25.b (ours; default 1.2 / 0.75)
	// MinSemanticScore is min_semantic_score (ours): the similarity a chunk in which none of the
	// query's terms occurs must exceed to be a result. nil (the default): the embedder's
	// Calibration.
	MinSemanticScore *float64
	// MaxQueryBytes is max_query_bytes (ours): the longest query accepted, in bytes (default
	// DefaultMaxQueryBytes, 4096). MaxQueryTerms is max_query_terms (ours): the most distinct
	// terms a query may have after analysis (default DefaultMaxQueryTerms, 64). Beyond either,
	// file_search answers INVALID_QUERY naming the limit.
	MaxQueryBytes, MaxQueryTerms int
	// MaxConcurrentPerTenant is max_concurrent_per_tenant (ours): how many searches of one
	// tenant run at once (0, the default: half the CPUs, at least 1); MaxConcurrent is
	// max_concurrent (ours): how many of all tenants (0, the default: the CPUs, at least 2).
	// SlotWait is slot_wait_ms (ours): how long a search waits for its slots before it fails
	// with RESOURCE_BUSY (default 10000; 0: until the call's own deadline). See
	// SearcherOptions.MaxConcurrentPerTenant.
	MaxConcurrentPerTenant, MaxConcurrent int
	SlotWait                              time.Duration
	// Expansion is expansion (ours): pseudo-relevance feedback into the lexical leg, with keys
	// feedback_chunks (default 10; 0 for none), feedback_terms (default 10; 0 for none) and
	// original_weight (default 0.5; 1 for none); see Expansion.
	Expansion Expansion
}

// RerankConfig is settings.mcp.files.search.rerank.
type RerankConfig struct {
	Model string // model (default rerank-v3.5)
	// Endpoint is endpoint: the full URL of a Cohere-compatible rerank API, such as Cohere's own
	// https://api.cohere.com/v2/rerank. It has no default: queries, chunks and the caller's key
	// go only to a host the operator names, and a Reranker built without one is INVALID_CONFIG.
	Endpoint string
	Timeout  time.Duration // timeout_ms (default 3000)
}

// FallbackConfig is settings.mcp.files.search.fallback: fused scoring used when rerank fails
// (or no reranker is configured).
//
// The weights default to the embedder's Calibration — semantic 0.1 and lexical 0.9 for the
// hashing embedder, 0.5 and 0.5 for an OpenAI-compatible model — and both 0 here
// means that. When the file gives only one of the two, the other is 1 minus it (at least 0).
type FallbackConfig struct {
	SemanticWeight float64    // semantic_weight (default: the embedder's)
	LexicalWeight  float64    // lexical_weight (default: the embedder's)
	Method         FuseMethod // method (ours): "tmm" (default), "minmax" or "rrf"; see FuseMethod
}

// IndexConfig is settings.mcp.files.index.
type IndexConfig struct {
	Workers           int           // workers (default 2)
	BatchSize         int           // batch_size: jobs claimed at once per worker (default 16)
	RetryMax          int           // retry_max: failed attempts before degrading (default 5)
	RetryBackoff      time.Duration // retry_backoff_ms: first retry delay, doubled per attempt (default 500)
	SLOP95            time.Duration // slo_p95_seconds: freshness objective reported with the stats (default 30)
	ChunkTargetBytes  int           // chunk_target_bytes (ours; default 1200)
	ChunkOverlapBytes int           // chunk_overlap_bytes (ours; default 150, 0 for none)
}

// SecurityConfig is settings.mcp.files.security.
type SecurityConfig struct {
	EncryptionKEKs        map[string]string // encryption_keks: id -> secret; required to build a vault.Vault
	CredentialCachePrefix string            // credential_cache_prefix (default mcp:files:cred)
	CredentialCacheTTL    time.Duration     // credential_cache_ttl_seconds (default 300)
}

// DefaultConfig returns the configuration with every default applied.
func DefaultConfig() Config {
	return Config{
		Search: SearchConfig{
			Enabled: true, LimitDefault: 5, LimitMax: 20, VectorCandidates: 30, BM25Candidates: 30,
			Rerank:        RerankConfig{Model: DefaultRerankModel, Timeout: 3 * time.Second},
			Fallback:      FallbackConfig{Method: FuseTMM},
			BM25:          indexdriver.DefaultBM25(),
			MaxQueryBytes: DefaultMaxQueryBytes, MaxQueryTerms: DefaultMaxQueryTerms,
			SlotWait:  DefaultSlotWait,
			Expansion: DefaultExpansion(),
		},
		Index: IndexConfig{
			Workers: 2, BatchSize: 16, RetryMax: 5, RetryBackoff: 500 * time.Millisecond, SLOP95: 30 * time.Second,
			ChunkTargetBytes: DefaultChunkTargetBytes, ChunkOverlapBytes: DefaultChunkOverlapBytes,
		},
		Security: SecurityConfig{CredentialCachePrefix: vault.DefaultPrefix, CredentialCacheTTL: vault.DefaultTTL},
	}
}

// LoadConfigFile reads the configuration file at path; see LoadConfig.
func LoadConfigFile(path string) (Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return Config{}, agentfiles.WrapError(agentfiles.CodeInvalidConfig, "cannot open the configuration file", path, err)
	}
	defer f.Close()
	return LoadConfig(f)
}

// LoadConfig reads settings.mcp.files.{search,index,security} from a YAML service
// configuration. fileio's keys beside them and the application's top-level keys are left to
// their readers; unknown keys inside those three sub-trees, keys under settings: other than mcp
// and under settings.mcp: other than files, and bad values are INVALID_CONFIG errors whose Arg
// is the full key and whose message names the line and the form the value takes. A document
// without the keys yields DefaultConfig.
func LoadConfig(r io.Reader) (Config, error) {
	cfg := DefaultConfig()
	var doc yaml.Node
	if err := yaml.NewDecoder(r).Decode(&doc); err != nil {
		if err == io.EOF {
			return cfg, nil
		}
		return cfg, agentfiles.WrapError(agentfiles.CodeInvalidConfig, "the configuration is not valid YAML: "+err.Error(), "", err)
	}
	files, err := settingsdoc.Files(&doc)
	if err != nil || files == nil {
		return cfg, err
	}
	const base = "settings.mcp.files."
	var semSet, lexSet bool // which fusion weights the file gives
	for i := 0; i+1 < len(files.Content); i += 2 {
		key, val := files.Content[i].Value, files.Content[i+1]
		var err error
		switch key {
		case "search":
			err = walk(val, base+"search", map[string]setter{
				"enabled":                   boolKey(&cfg.Search.Enabled),
				"limit_default":             intKey(&cfg.Search.LimitDefault, 1),
				"limit_max":                 intKey(&cfg.Search.LimitMax, 1),
				"vector_candidates":         intKey(&cfg.Search.VectorCandidates, 0),
				"bm25_candidates":           intKey(&cfg.Search.BM25Candidates, 0),
				"max_query_bytes":           intKey(&cfg.Search.MaxQueryBytes, 1),
				"max_query_terms":           intKey(&cfg.Search.MaxQueryTerms, 1),
				"max_concurrent_per_tenant": intKey(&cfg.Search.MaxConcurrentPerTenant, 0),
				"max_concurrent":            intKey(&cfg.Search.MaxConcurrent, 0),
				"slot_wait_ms":              durationKey(&cfg.Search.SlotWait, time.Millisecond),
				"rerank": subtree(map[string]setter{
					"model":      stringKey(&cfg.Search.Rerank.Model),
					"endpoint":   stringKey(&cfg.Search.Rerank.Endpoint),
					"timeout_ms": durationKey(&cfg.Search.Rerank.Timeout, time.Millisecond),
				}),
				"min_semantic_score": func(n *yaml.Node, key string) error {
					var v float64
					if err := floatKey(&v, -1, math.MaxFloat64)(n, key); err != nil {
						return err
					}
					cfg.Search.MinSemanticScore = &v
					return nil
				},
				"fallback": subtree(map[string]setter{
					"semantic_weight": setKey(&semSet, floatKey(&cfg.Search.Fallback.SemanticWeight, 0, math.MaxFloat64)),
					"lexical_weight":  setKey(&lexSet, floatKey(&cfg.Search.Fallback.LexicalWeight, 0, math.MaxFloat64)),
					"method": func(n *yaml.Node, key string) error {
						m := FuseMethod(n.Value)
						if n.Kind != yaml.ScalarNode || (m != FuseTMM && m != FuseMinMax && m != FuseRRF) {
							return lineError(n, key, `must be "tmm", "minmax" or "rrf"`)
						}
						cfg.Search.Fallback.Method = m
						return nil
					},
				}),
				"expansion": subtree(map[string]setter{
					"feedback_chunks": intRangeKey(&cfg.Search.Expansion.FeedbackChunks, 0, MaxFeedback),
					"feedback_terms":  intRangeKey(&cfg.Search.Expansion.FeedbackTerms, 0, MaxFeedback),
					"original_weight": func(n *yaml.Node, key string) error {
						var v float64
						if err := floatKey(&v, 0, 1)(n, key); err != nil || v == 0 {
							return lineError(n, key, fmt.Sprintf("must be a number above 0 and at most 1 (1: no expansion), got %q", n.Value))
						}
						cfg.Search.Expansion.OriginalWeight = v
						return nil
					},
				}),
				"bm25": subtree(map[string]setter{
					"k1": floatKey(&cfg.Search.BM25.K1, 0, 100),
					"b":  floatKey(&cfg.Search.BM25.B, 0, 1),
				}),
			})
		case "index":
			err = walk(val, base+"index", map[string]setter{
				"workers":             intKey(&cfg.Index.Workers, 1),
				"batch_size":          intKey(&cfg.Index.BatchSize, 1),
				"retry_max":           intKey(&cfg.Index.RetryMax, 0),
				"retry_backoff_ms":    durationKey(&cfg.Index.RetryBackoff, time.Millisecond),
				"slo_p95_seconds":     durationKey(&cfg.Index.SLOP95, time.Second),
				"chunk_target_bytes":  intKey(&cfg.Index.ChunkTargetBytes, minChunkTargetBytes),
				"chunk_overlap_bytes": intKey(&cfg.Index.ChunkOverlapBytes, 0),
			})
		case "security":
			err = walk(val, base+"security", map[string]setter{
				"encryption_keks": func(n *yaml.Node, key string) error {
					if n.Kind != yaml.MappingNode {
						return lineError(n, key, "must be a mapping of key id to secret, as in encryption_keks: {\"1\": <a secret of 16 or more bytes>}")
					}
					cfg.Security.EncryptionKEKs = make(map[string]string)
					for j := 0; j+1 < len(n.Content); j += 2 {
						id, secret := n.Content[j].Value, n.Content[j+1]
						if secret.Kind != yaml.ScalarNode || len(secret.Value) < vault.MinKEKSecretBytes {
							return lineError(secret, key+"."+id, "must be a string of at least 16 bytes")
						}
						cfg.Security.EncryptionKEKs[id] = secret.Value
					}
					return nil
				},
				"credential_cache_prefix":      stringKey(&cfg.Security.CredentialCachePrefix),
				"credential_cache_ttl_seconds": durationKey(&cfg.Security.CredentialCacheTTL, time.Second),
			})
		}
		if err != nil {
			return cfg, err
		}
	}
	if cfg.Search.LimitDefault > cfg.Search.LimitMax {
		return cfg, agentfiles.NewError(agentfiles.CodeInvalidConfig, fmt.Sprintf("must not exceed limit_max (%d)", cfg.Search.LimitMax), base+"search.limit_default")
	}
	fb := &cfg.Search.Fallback
	switch {
	case semSet && lexSet && fb.SemanticWeight+fb.LexicalWeight == 0:
		return cfg, agentfiles.NewError(agentfiles.CodeInvalidConfig, "semantic_weight and lexical_weight must not both be 0", base+"search.fallback")
	case semSet && !lexSet:
		fb.LexicalWeight = max(0, 1-fb.SemanticWeight)
	case lexSet && !semSet:
		fb.SemanticWeight = max(0, 1-fb.LexicalWeight)
	}
	return cfg, nil
}

// SearcherOptions returns the Searcher settings of c: limits, candidate counts, BM25, the
// fallback fusion, the rerank timeout and the search slots from settings.mcp.files.search, and
// the chunk sizes from .index. A 0 in the file (vector_candidates, bm25_candidates, timeout_ms,
// slot_wait_ms) means none. The caller
// adds the Embedder, Reranker and Logger.
func (c Config) SearcherOptions() SearcherOptions {
	s := c.Search
	return SearcherOptions{
		Chunker:      c.Index.chunker(),
		LimitDefault: s.LimitDefault, LimitMax: s.LimitMax,
		VectorCandidates: zeroMeansNone(s.VectorCandidates), BM25Candidates: zeroMeansNone(s.BM25Candidates),
		BM25:       s.BM25,
		FuseMethod: s.Fallback.Method, SemanticWeight: s.Fallback.SemanticWeight, LexicalWeight: s.Fallback.LexicalWeight,
		MinSemanticScore: copyFloat(s.MinSemanticScore),
		RerankTimeout:    zeroMeansNone(s.Rerank.Timeout),
		MaxQueryBytes:    s.MaxQueryBytes, MaxQueryTerms: s.MaxQueryTerms,
		MaxConcurrentPerTenant: s.MaxConcurrentPerTenant, MaxConcurrent: s.MaxConcurrent,
		SlotWait: zeroMeansNone(s.SlotWait),
		Expansion: Expansion{FeedbackChunks: zeroMeansNone(s.Expansion.FeedbackChunks), FeedbackTerms: zeroMeansNone(s.Expansion.FeedbackTerms),
			OriginalWeight: s.Expansion.OriginalWeight},
	}
}

// copyFloat returns a pointer to a copy of *p (nil for nil), so options never share a variable
// with the Config.
func copyFloat(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// IndexerOptions returns the Indexer settings of c: workers, batch size, retries, backoff, the
// freshness objective and the chunk sizes of settings.mcp.files.index (retry_max 0 means no
// retries). The caller adds the Embedder, Credentials and Logger.
func (c Config) IndexerOptions() IndexerOptions {
	i := c.Index
	return IndexerOptions{
		Chunker: i.chunker(), Workers: i.Workers, BatchSize: i.BatchSize, RetryMax: zeroMeansNone(i.RetryMax),
		RetryBackoff: i.RetryBackoff, SLOP95: i.SLOP95,
	}
}

// chunker is the Chunker of chunk_target_bytes and chunk_overlap_bytes (0: no overlap).
func (c IndexConfig) chunker() Chunker {
	return NewChunker(ChunkerOptions{TargetBytes: c.ChunkTargetBytes, OverlapBytes: zeroMeansNone(c.ChunkOverlapBytes)})
}

// VaultOptions returns the credential_cache_prefix and credential_cache_ttl_seconds of c for
// vault.New(c.EncryptionKEKs, …). The caller adds the Store and Logger.
func (c SecurityConfig) VaultOptions() vault.Options {
	return vault.Options{Prefix: c.CredentialCachePrefix, TTL: c.CredentialCacheTTL}
}

// zeroMeansNone turns a configuration value where 0 means none into an option where 0 means the
// default and a negative value none.
func zeroMeansNone[T int | time.Duration](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

type setter func(n *yaml.Node, key string) error

func walk(n *yaml.Node, prefix string, keys map[string]setter) error {
	if n.Kind != yaml.MappingNode {
		return lineError(n, prefix, "must be a mapping")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		set, ok := keys[k]
		if !ok {
			known := make([]string, 0, len(keys))
			for name := range keys {
				known = append(known, name)
			}
			sort.Strings(known)
			return agentfiles.NewError(agentfiles.CodeInvalidConfig, fmt.Sprintf("unknown key (line %d); valid keys here are %s", n.Content[i].Line, strings.Join(known, ", ")), prefix+"."+k)
		}
		if err := set(n.Content[i+1], prefix+"."+k); err != nil {
			return err
		}
	}
	return nil
}

func subtree(keys map[string]setter) setter {
	return func(n *yaml.Node, key string) error { return walk(n, key, keys) }
}

// lineError is INVALID_CONFIG for key, whose value n is at a line of the file the message names.
func lineError(n *yaml.Node, key, msg string) *agentfiles.Error {
	return agentfiles.NewError(agentfiles.CodeInvalidConfig, fmt.Sprintf("%s (line %d)", msg, n.Line), key)
}

func scalar(n *yaml.Node, key, want string) error {
	if n.Kind != yaml.ScalarNode {
		return lineError(n, key, "must be "+want)
	}
	return nil
}

func boolKey(dst *bool) setter {
	return func(n *yaml.Node, key string) error {
		if err := scalar(n, key, "true or false"); err != nil {
			return err
		}
		var v bool
		if err := n.Decode(&v); err != nil {
			return lineError(n, key, "must be true or false")
		}
		*dst = v
		return nil
	}
}

func intKey(dst *int, minimum int) setter {
	return func(n *yaml.Node, key string) error {
		if err := scalar(n, key, "an integer"); err != nil {
			return err
		}
		v, err := strconv.Atoi(n.Value)
		if err != nil || v < minimum {
			return lineError(n, key, fmt.Sprintf("must be an integer >= %d, got %q", minimum, n.Value))
		}
		*dst = v
		return nil
	}
}

func intRangeKey(dst *int, lo, hi int) setter {
	return func(n *yaml.Node, key string) error {
		if err := scalar(n, key, "an integer"); err != nil {
			return err
		}
		v, err := strconv.Atoi(n.Value)
		if err != nil || v < lo || v > hi {
			return lineError(n, key, fmt.Sprintf("must be an integer in [%d, %d], got %q", lo, hi, n.Value))
		}
		*dst = v
		return nil
	}
}

func floatKey(dst *float64, lo, hi float64) setter {
	return func(n *yaml.Node, key string) error {
		if err := scalar(n, key, "a number"); err != nil {
			return err
		}
		v, err := strconv.ParseFloat(n.Value, 64)
		if err != nil || v < lo || v > hi || math.IsNaN(v) {
			return lineError(n, key, fmt.Sprintf("must be a number in [%g, %g], got %q", lo, hi, n.Value))
		}
		*dst = v
		return nil
	}
}

// setKey wraps set so that *given records that the key was in the file.
func setKey(given *bool, set setter) setter {
	return func(n *yaml.Node, key string) error {
		*given = true
		return set(n, key)
	}
}

func stringKey(dst *string) setter {
	return func(n *yaml.Node, key string) error {
		if err := scalar(n, key, "a string"); err != nil {
			return err
		}
		*dst = n.Value
		return nil
	}
}

func durationKey(dst *time.Duration, unit time.Duration) setter {
	form := "a whole number of seconds such as 60"
	if unit == time.Millisecond {
		form = "a whole number of milliseconds such as 1500"
	}
	return func(n *yaml.Node, key string) error {
		if err := scalar(n, key, form); err != nil {
			return err
		}
		v, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil || v < 0 || v > int64(math.MaxInt64/unit) {
			return lineError(n, key, fmt.Sprintf("must be %s (0 or more), got %q", form, n.Value))
		}
		*dst = time.Duration(v) * unit
		return nil
	}
}
