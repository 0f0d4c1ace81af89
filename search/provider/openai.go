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

// OpenAIEmbedderOptions are the optional settings of an [OpenAIEmbedder]; the zero value gives
// the defaults.
type OpenAIEmbedderOptions struct {
	// SendDimensions adds "dimensions" to the request, for models that can shorten their vectors
	// (text-embedding-3-*).
	SendDimensions bool
	// BatchInputs is the most texts per request (default 64).
	BatchInputs int
	// Timeout bounds each request (default 30s).
	Timeout time.Duration
	// HTTPClient sends the requests (default: a client without its own timeout; Timeout applies).
	HTTPClient *http.Client
	// Credential returns the API key (default CallerAPIKey: the caller's own key).
	Credential CredentialFunc
	// Logger receives debug and warning records without texts or keys (nil: silent).
	Logger *slog.Logger
}

// OpenAIEmbedder calls an OpenAI-compatible POST /v1/embeddings endpoint (OpenAI, Azure-style
// proxies, Ollama, vLLM, LiteLLM). Inputs are sent in batches; results are put back in input
// order by their "index" field and L2-normalised. It is safe for concurrent use.
type OpenAIEmbedder struct {
	model  string
	dims   int
	opts   OpenAIEmbedderOptions
	client providerClient
}

var (
	_ search.Embedder             = (*OpenAIEmbedder)(nil)
	_ search.CallerCredentialUser = (*OpenAIEmbedder)(nil)
)

// NewOpenAIEmbedder returns a client of the embeddings endpoint, the full URL such as
// "https://api.openai.com/v1/embeddings" or "http://localhost:11434/v1/embeddings", for model
// (sent as "model", e.g. "text-embedding-3-small"), whose vectors have dimensions floats:
// responses of another size are rejected, so an index never mixes sizes. All three are
// required; a missing one is INVALID_CONFIG.
func NewOpenAIEmbedder(endpoint, model string, dimensions int, opts OpenAIEmbedderOptions) (*OpenAIEmbedder, error) {
	switch {
	case endpoint == "":
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "the embeddings endpoint URL is required", "Endpoint")
	case model == "":
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "the embedding model name is required", "Model")
	case dimensions <= 0:
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "the embedding dimensions must be positive", "Dimensions")
	}
	if opts.BatchInputs <= 0 {
		opts.BatchInputs = 64
	}
	client := newProviderClient("embedding provider", endpoint, opts.Timeout, 30*time.Second, opts.HTTPClient, opts.Credential, opts.Logger)
	return &OpenAIEmbedder{model: model, dims: dimensions, opts: opts, client: client}, nil
}

// Model returns the configured model name.
func (e *OpenAIEmbedder) Model() string { return e.model }

// Dimensions returns the configured vector size.
func (e *OpenAIEmbedder) Dimensions() int { return e.dims }

// UsesCallerCredential reports true: requests carry the caller's API key.
func (e *OpenAIEmbedder) UsesCallerCredential() bool { return true }

type openAIEmbeddingRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type openAIEmbeddingResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Embed returns one vector per text, in order. Errors are MODEL_ERROR with the
// provider's message, or CREDENTIAL_UNAVAILABLE when there is no key.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	key, err := e.client.credential(ctx)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for lo := 0; lo < len(texts); lo += e.opts.BatchInputs {
		hi := min(lo+e.opts.BatchInputs, len(texts))
		req := openAIEmbeddingRequest{Model: e.model, Input: texts[lo:hi], EncodingFormat: "float"}
		if e.opts.SendDimensions {
			req.Dimensions = e.dims
		}
		var resp openAIEmbeddingResponse
		if err := e.client.post(ctx, key, req, &resp); err != nil {
			return nil, err
		}
		if len(resp.Data) != hi-lo {
			return nil, agentfiles.NewError(agentfiles.CodeModelError, fmt.Sprintf("embedding provider returned %d vectors for %d inputs", len(resp.Data), hi-lo), e.client.endpoint)
		}
		for _, d := range resp.Data {
			if d.Index < 0 || d.Index >= hi-lo || out[lo+d.Index] != nil {
				return nil, agentfiles.NewError(agentfiles.CodeModelError, fmt.Sprintf("embedding provider returned a missing, duplicate or out-of-range index %d", d.Index), e.client.endpoint)
			}
			if len(d.Embedding) != e.dims {
				return nil, agentfiles.NewError(agentfiles.CodeModelError, fmt.Sprintf("embedding provider returned %d dimensions, the configuration says %d; fix Dimensions or the model", len(d.Embedding), e.dims), e.client.endpoint)
			}
			search.Normalize(d.Embedding)
			out[lo+d.Index] = d.Embedding
		}
	}
	return out, nil
}
