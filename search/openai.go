package search

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// OpenAIEmbedderConfig configures [OpenAIEmbedder].
type OpenAIEmbedderConfig struct {
	// Endpoint is the full URL of the embeddings endpoint, e.g.
	// "https://api.openai.com/v1/embeddings" or "http://localhost:11434/v1/embeddings". Required.
	Endpoint string
	// Model is sent as "model", e.g. "text-embedding-3-small". Required.
	Model string
	// Dimensions is the vector size the model returns. Required: responses of another size are
	// rejected, so an index never mixes sizes.
	Dimensions int
	// SendDimensions adds "dimensions": Dimensions to the request, for models that can shorten
	// their vectors (text-embedding-3-*).
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
	cfg OpenAIEmbedderConfig
	log *slog.Logger
}

var (
	_ Embedder             = (*OpenAIEmbedder)(nil)
	_ CallerCredentialUser = (*OpenAIEmbedder)(nil)
)

// NewOpenAIEmbedder validates cfg and returns the client.
func NewOpenAIEmbedder(cfg OpenAIEmbedderConfig) (*OpenAIEmbedder, error) {
	switch {
	case cfg.Endpoint == "":
		return nil, NewError(CodeInvalidConfig, "the embeddings endpoint URL is required", "Endpoint")
	case cfg.Model == "":
		return nil, NewError(CodeInvalidConfig, "the embedding model name is required", "Model")
	case cfg.Dimensions <= 0:
		return nil, NewError(CodeInvalidConfig, "the embedding dimensions must be positive", "Dimensions")
	}
	if cfg.BatchInputs <= 0 {
		cfg.BatchInputs = 64
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.Credential == nil {
		cfg.Credential = CallerAPIKey
	}
	return &OpenAIEmbedder{cfg: cfg, log: orDiscard(cfg.Logger)}, nil
}

// Model returns the configured model name.
func (e *OpenAIEmbedder) Model() string { return e.cfg.Model }

// Dimensions returns the configured vector size.
func (e *OpenAIEmbedder) Dimensions() int { return e.cfg.Dimensions }

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

// Embed returns one vector per text, in order. Errors are SEARCH_BACKEND_ERROR with the
// provider's message, or CREDENTIAL_UNAVAILABLE when there is no key.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	key, err := e.cfg.Credential(ctx)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for lo := 0; lo < len(texts); lo += e.cfg.BatchInputs {
		hi := min(lo+e.cfg.BatchInputs, len(texts))
		req := openAIEmbeddingRequest{Model: e.cfg.Model, Input: texts[lo:hi], EncodingFormat: "float"}
		if e.cfg.SendDimensions {
			req.Dimensions = e.cfg.Dimensions
		}
		var resp openAIEmbeddingResponse
		if err := postJSON(ctx, e.cfg.HTTPClient, e.cfg.Timeout, "embedding provider", e.cfg.Endpoint, key, req, &resp, e.log); err != nil {
			return nil, err
		}
		if len(resp.Data) != hi-lo {
			return nil, NewError(CodeSearchBackend, fmt.Sprintf("embedding provider returned %d vectors for %d inputs", len(resp.Data), hi-lo), e.cfg.Endpoint)
		}
		for _, d := range resp.Data {
			if d.Index < 0 || d.Index >= hi-lo || out[lo+d.Index] != nil {
				return nil, NewError(CodeSearchBackend, fmt.Sprintf("embedding provider returned a missing, duplicate or out-of-range index %d", d.Index), e.cfg.Endpoint)
			}
			if len(d.Embedding) != e.cfg.Dimensions {
				return nil, NewError(CodeSearchBackend, fmt.Sprintf("embedding provider returned %d dimensions, the configuration says %d; fix Dimensions or the model", len(d.Embedding), e.cfg.Dimensions), e.cfg.Endpoint)
			}
			normalise(d.Embedding)
			out[lo+d.Index] = d.Embedding
		}
	}
	return out, nil
}
