package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/search/provider"
)

// An OpenAI-compatible embedding endpoint (here a loopback stand-in that speaks the wire
// format) called with the caller's own key; the vectors come back L2-normalised.
func ExampleNewOpenAIEmbedder() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		fmt.Println("key sent:", r.Header.Get("Authorization"))
		data := make([]map[string]any, len(req.Input))
		for i := range req.Input {
			data[i] = map[string]any{"index": i, "embedding": []float32{3, 4}}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer srv.Close()

	emb, err := provider.NewOpenAIEmbedder(srv.URL+"/v1/embeddings", "text-embedding-3-small", 2, provider.OpenAIEmbedderOptions{})
	if err != nil {
		panic(err)
	}
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-caller", "alice"))
	vecs, err := emb.Embed(ctx, []string{"hello"})
	fmt.Println(vecs, err)
	// Output:
	// key sent: Bearer sk-caller
	// [[0.6 0.8]] <nil>
}
