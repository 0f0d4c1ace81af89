package provider

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/search"
)

// CohereRerankerOptions are the optional settings of a [CohereReranker]; the zero value gives
// the defaults. [RerankOptions] fills them from the configuration file.
type CohereRerankerOptions struct {
	// Model defaults to search.DefaultRerankModel.
	Model string
	// Timeout bounds each request (default 5s). The searcher falls back to fused scores when it
	// passes.
	Timeout time.Duration
	// HTTPClient sends the requests (default: a plain client; Timeout applies).
	HTTPClient *http.Client
	// Credential returns the API key (default CallerAPIKey: the caller's own key).
	Credential CredentialFunc
	// Logger receives debug and warning records without texts or keys (nil: silent).
	Logger *slog.Logger
}

// CohereReranker calls a Cohere-compatible POST /v1/rerank endpoint: request
// {model, query, documents, top_n}, response {results: [{index, relevance_score}]}. It is safe
// for concurrent use.
type CohereReranker struct {
	model  string
	client providerClient
}

var (
	_ search.Reranker             = (*CohereReranker)(nil)
	_ search.CallerCredentialUser = (*CohereReranker)(nil)
)

// NewCohereReranker returns a client of endpoint, the full URL of a Cohere-compatible rerank
// endpoint (".../v1/rerank", or Cohere's own https://api.cohere.com/v2/rerank); an empty
// endpoint is INVALID_CONFIG: there is no default host.
func NewCohereReranker(endpoint string, opts CohereRerankerOptions) (*CohereReranker, error) {
	if endpoint == "" {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "the rerank endpoint URL is required: name a Cohere-compatible rerank API such as https://api.cohere.com/v2/rerank "+
			"(settings.mcp.files.search.rerank.endpoint); there is no default", "Endpoint")
	}
	if opts.Model == "" {
		opts.Model = search.DefaultRerankModel
	}
	client := newProviderClient("rerank provider", endpoint, opts.Timeout, 5*time.Second, opts.HTTPClient, opts.Credential, opts.Logger)
	return &CohereReranker{model: opts.Model, client: client}, nil
}

// Model returns the model name sent to the provider.
func (r *CohereReranker) Model() string { return r.model }

// UsesCallerCredential reports true: requests carry the caller's API key.
func (r *CohereReranker) UsesCallerCredential() bool { return true }

type cohereRerankRequest struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n"`
}

type cohereRerankResponse struct {
	Results []struct {
		Index          int      `json:"index"`
		RelevanceScore *float64 `json:"relevance_score"`
	} `json:"results"`
}

// Rerank sends one request and validates the answer: every index in range and unique, every
// score present.
func (r *CohereReranker) Rerank(ctx context.Context, query string, documents []string, topN int) ([]search.RerankResult, error) {
	if len(documents) == 0 {
		return nil, nil
	}
	if topN <= 0 || topN > len(documents) {
		topN = len(documents)
	}
	key, err := r.client.credential(ctx)
	if err != nil {
		return nil, err
	}
	var resp cohereRerankResponse
	req := cohereRerankRequest{Model: r.model, Query: query, Documents: documents, TopN: topN}
	if err := r.client.post(ctx, key, req, &resp); err != nil {
		return nil, err
	}
	if len(resp.Results) > topN {
		return nil, agentfiles.NewError(agentfiles.CodeModelError, fmt.Sprintf("rerank provider returned %d results for top_n %d", len(resp.Results), topN), r.client.endpoint)
	}
	seen := make(map[int]bool, len(resp.Results))
	out := make([]search.RerankResult, 0, len(resp.Results))
	for _, res := range resp.Results {
		if res.Index < 0 || res.Index >= len(documents) || seen[res.Index] {
			return nil, agentfiles.NewError(agentfiles.CodeModelError, fmt.Sprintf("rerank provider returned a duplicate or out-of-range index %d", res.Index), r.client.endpoint)
		}
		if res.RelevanceScore == nil {
			return nil, agentfiles.NewError(agentfiles.CodeModelError, "rerank provider returned a result without relevance_score", r.client.endpoint)
		}
		seen[res.Index] = true
		out = append(out, search.RerankResult{Index: res.Index, Score: *res.RelevanceScore})
	}
	return out, nil
}

// RerankOptions returns the model and timeout of the configuration's search.rerank section for
// NewCohereReranker(c.Endpoint, …). The caller adds the HTTP client, credential and Logger.
func RerankOptions(c search.RerankConfig) CohereRerankerOptions {
	return CohereRerankerOptions{Model: c.Model, Timeout: c.Timeout}
}
