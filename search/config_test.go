package search

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/vault"
	"github.com/google/go-cmp/cmp"
)

func TestLoadConfig(t *testing.T) {
	yaml := `
settings:
  mcp:
    files:
      max_file_bytes: 1024      # fileio's key: ignored here
      search:
        limit_default: 7
        limit_max: 15
        vector_candidates: 40
        bm25_candidates: 50
        rerank: {model: rerank-english-v3.0, endpoint: "http://127.0.0.1:9/v1/rerank", timeout_ms: 1500}
        fallback: {semantic_weight: 0.3, lexical_weight: 0.7, method: rrf}
        bm25: {k1: 1.5, b: 0.6}
        expansion: {feedback_chunks: 5, feedback_terms: 20, original_weight: 0.7}
      index: {workers: 4, batch_size: 8, retry_max: 3, retry_backoff_ms: 250, slo_p95_seconds: 10}
      security:
        encryption_keks: {"1": "0123456789abcdef0123", "2": "fedcba9876543210fedc"}
        credential_cache_prefix: "x:cred"
        credential_cache_ttl_seconds: 60
`
	got, err := LoadConfig(strings.NewReader(yaml))
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	want.Search.LimitDefault, want.Search.LimitMax, want.Search.VectorCandidates, want.Search.BM25Candidates = 7, 15, 40, 50
	want.Search.Rerank = RerankConfig{Model: "rerank-english-v3.0", Endpoint: "http://127.0.0.1:9/v1/rerank", Timeout: 1500 * time.Millisecond}
	want.Search.Fallback = FallbackConfig{SemanticWeight: 0.3, LexicalWeight: 0.7, Method: FuseRRF}
	want.Search.BM25 = indexdriver.BM25{K1: 1.5, B: 0.6}
	want.Search.Expansion = Expansion{FeedbackChunks: 5, FeedbackTerms: 20, OriginalWeight: 0.7}
	want.Index.Workers, want.Index.BatchSize, want.Index.RetryMax, want.Index.RetryBackoff, want.Index.SLOP95 = 4, 8, 3, 250*time.Millisecond, 10*time.Second
	want.Security = SecurityConfig{EncryptionKEKs: map[string]string{"1": "0123456789abcdef0123", "2": "fedcba9876543210fedc"}, CredentialCachePrefix: "x:cred", CredentialCacheTTL: time.Minute}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if got, err := LoadConfig(strings.NewReader("")); err != nil || !cmp.Equal(got, DefaultConfig()) {
		t.Errorf("empty document: %v", err)
	}
}

func TestLoadConfigErrorsNameTheKey(t *testing.T) {
	tests := []struct {
		yaml, key string
	}{
		{"settings: {mcp: {files: {search: {limt_max: 3}}}}", "settings.mcp.files.search.limt_max"},
		{"settings: {mcp: {files: {search: {limit_max: many}}}}", "settings.mcp.files.search.limit_max"},
		{"settings: {mcp: {files: {search: {limit_max: 0}}}}", "settings.mcp.files.search.limit_max"},
		{"settings: {mcp: {files: {search: {limit_default: 30}}}}", "settings.mcp.files.search.limit_default"},
		{"settings: {mcp: {files: {search: {rerank: {timeout_ms: -1}}}}}", "settings.mcp.files.search.rerank.timeout_ms"},
		{"settings: {mcp: {files: {search: {fallback: {method: average}}}}}", "settings.mcp.files.search.fallback.method"},
		{"settings: {mcp: {files: {search: {fallback: {semantic_weight: 0, lexical_weight: 0}}}}}", "settings.mcp.files.search.fallback"},
		{"settings: {mcp: {files: {search: {bm25: {b: 2}}}}}", "settings.mcp.files.search.bm25.b"},
		{"settings: {mcp: {files: {search: {expansion: {feedback_chunks: 101}}}}}", "settings.mcp.files.search.expansion.feedback_chunks"},
		{"settings: {mcp: {files: {search: {expansion: {feedback_terms: -1}}}}}", "settings.mcp.files.search.expansion.feedback_terms"},
		{"settings: {mcp: {files: {search: {expansion: {original_weight: 0}}}}}", "settings.mcp.files.search.expansion.original_weight"},
		{"settings: {mcp: {files: {search: {expansion: {original_weight: 1.5}}}}}", "settings.mcp.files.search.expansion.original_weight"},
		{"settings: {mcp: {files: {search: {expansion: {fb_docs: 5}}}}}", "settings.mcp.files.search.expansion.fb_docs"},
		{"settings: {mcp: {files: {index: {workers: 0}}}}", "settings.mcp.files.index.workers"},
		{"settings: {mcp: {files: {index: [1, 2]}}}", "settings.mcp.files.index"},
		{"settings: {mcp: {files: {security: {encryption_keks: {k1: short}}}}}", "settings.mcp.files.security.encryption_keks.k1"},
		{"settings: {mcp: {files: {security: {encryption_keks: [a]}}}}", "settings.mcp.files.security.encryption_keks"},
		{"settings: {mcp: {files: {security: {enabled: true}}}}", "settings.mcp.files.security.enabled"},
		{"settings: {search: {limit_max: 3}}", "settings.search"},
		{"settings: {mcp: {search: {limit_max: 3}}}", "settings.mcp.search"},
		{"settings: {mcp: {files: 3}}", "settings.mcp.files"},
	}
	for _, tc := range tests {
		_, err := LoadConfig(strings.NewReader(tc.yaml))
		var e *agentfiles.Error
		if !errors.As(err, &e) || e.Code != agentfiles.CodeInvalidConfig || e.Arg != tc.key {
			t.Errorf("%s: err %v, want INVALID_CONFIG naming %s", tc.yaml, err, tc.key)
		}
	}
	// The message names the line and the form the value takes.
	_, err := LoadConfig(strings.NewReader("settings:\n  mcp:\n    files:\n      index:\n        retry_backoff_ms: 2s\n"))
	want := `INVALID_CONFIG: must be a whole number of milliseconds such as 1500 (0 or more), got "2s" (line 5) (settings.mcp.files.index.retry_backoff_ms)`
	if err == nil || err.Error() != want {
		t.Errorf("retry_backoff_ms: 2s: %v, want %s", err, want)
	}
	if _, err := LoadConfig(strings.NewReader("settings: [")); !errors.Is(err, agentfiles.ErrInvalidConfig) {
		t.Errorf("bad YAML: %v", err)
	}
}

// TestConfigOptions: each part of the file reaches what it configures, 0 meaning none where the
// file allows it.
func TestConfigOptions(t *testing.T) {
	yaml := `
settings:
  mcp:
    files:
      search:
        limit_default: 7
        vector_candidates: 0
        max_concurrent_per_tenant: 3
        slot_wait_ms: 0
        rerank: {model: rerank-english-v3.0, timeout_ms: 0}
        fallback: {semantic_weight: 0.3, lexical_weight: 0.7, method: rrf}
        expansion: {feedback_chunks: 0}
      index: {workers: 4, retry_max: 0, chunk_target_bytes: 800, chunk_overlap_bytes: 0}
      security: {credential_cache_prefix: "x:cred", credential_cache_ttl_seconds: 60}
`
	cfg, err := LoadConfig(strings.NewReader(yaml))
	if err != nil {
		t.Fatal(err)
	}
	chunker := NewChunker(ChunkerOptions{TargetBytes: 800, OverlapBytes: -1})
	opt := cmp.AllowUnexported(Chunker{})
	wantSearcher := SearcherOptions{
		Chunker: chunker, LimitDefault: 7, LimitMax: 20, VectorCandidates: -1, BM25Candidates: 30, BM25: indexdriver.DefaultBM25(),
		FuseMethod: FuseRRF, SemanticWeight: 0.3, LexicalWeight: 0.7, RerankTimeout: -1,
		MaxQueryBytes: DefaultMaxQueryBytes, MaxQueryTerms: DefaultMaxQueryTerms,
		MaxConcurrentPerTenant: 3, SlotWait: -1,
		Expansion: Expansion{FeedbackChunks: -1, FeedbackTerms: 10, OriginalWeight: 0.5},
	}
	if diff := cmp.Diff(wantSearcher, cfg.SearcherOptions(), opt); diff != "" {
		t.Errorf("SearcherOptions (-want +got):\n%s", diff)
	}
	wantIndexer := IndexerOptions{Chunker: chunker, Workers: 4, BatchSize: 16, RetryMax: -1, RetryBackoff: 500 * time.Millisecond, SLOP95: 30 * time.Second}
	if diff := cmp.Diff(wantIndexer, cfg.IndexerOptions(), opt); diff != "" {
		t.Errorf("IndexerOptions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ChunkerOptions{TargetBytes: 800}, chunker.Options()); diff != "" {
		t.Errorf("chunk sizes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(vault.Options{Prefix: "x:cred", TTL: time.Minute}, cfg.Security.VaultOptions()); diff != "" {
		t.Errorf("VaultOptions (-want +got):\n%s", diff)
	}
	// The defaults of the file are the defaults of the options.
	d := DefaultConfig().SearcherOptions()
	if d.VectorCandidates != 30 || d.RerankTimeout != 3*time.Second || d.LimitDefault != 5 {
		t.Errorf("DefaultConfig().SearcherOptions() = %+v", d)
	}
}

// TestConfigFusionKeys: unset weights and floor mean the embedder's calibration; one weight
// given sets the other to its complement; min_semantic_score reaches the Searcher's options.
func TestConfigFusionKeys(t *testing.T) {
	d := DefaultConfig()
	if o := d.SearcherOptions(); o.SemanticWeight != 0 || o.LexicalWeight != 0 || o.MinSemanticScore != nil {
		t.Errorf("defaults: weights %v/%v floor %v, want unset", o.SemanticWeight, o.LexicalWeight, o.MinSemanticScore)
	}
	tests := []struct {
		yaml     string
		sem, lex float64
		floor    *float64
	}{
		{"settings: {mcp: {files: {search: {fallback: {semantic_weight: 0.2}}}}}", 0.2, 0.8, nil},
		{"settings: {mcp: {files: {search: {fallback: {lexical_weight: 1}}}}}", 0, 1, nil},
		{"settings: {mcp: {files: {search: {fallback: {semantic_weight: 0}}}}}", 0, 1, nil},
		{"settings: {mcp: {files: {search: {fallback: {semantic_weight: 3}}}}}", 3, 0, nil},
		{"settings: {mcp: {files: {search: {min_semantic_score: 0.4}}}}", 0, 0, ptr(0.4)},
		{"settings: {mcp: {files: {search: {min_semantic_score: 0}}}}", 0, 0, ptr(0.0)},
	}
	for _, tc := range tests {
		cfg, err := LoadConfig(strings.NewReader(tc.yaml))
		if err != nil {
			t.Fatalf("%s: %v", tc.yaml, err)
		}
		o := cfg.SearcherOptions()
		if o.SemanticWeight != tc.sem || o.LexicalWeight != tc.lex || !cmp.Equal(o.MinSemanticScore, tc.floor) {
			t.Errorf("%s: weights %v/%v floor %v, want %v/%v %v", tc.yaml, o.SemanticWeight, o.LexicalWeight, o.MinSemanticScore, tc.sem, tc.lex, tc.floor)
		}
	}
	for _, bad := range []string{
		"settings: {mcp: {files: {search: {min_semantic_score: -2}}}}",
		"settings: {mcp: {files: {search: {min_semantic_score: high}}}}",
	} {
		_, err := LoadConfig(strings.NewReader(bad))
		var e *agentfiles.Error
		if !errors.As(err, &e) || e.Arg != "settings.mcp.files.search.min_semantic_score" {
			t.Errorf("%s: %v, want INVALID_CONFIG naming min_semantic_score", bad, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }
