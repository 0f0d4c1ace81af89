// Package provider holds the HTTP clients of hosted embedding and rerank models for package
// search: [OpenAIEmbedder] (any OpenAI-compatible POST /v1/embeddings endpoint) implements
// search.Embedder, and [CohereReranker] (any Cohere-compatible POST /v1/rerank endpoint)
// implements search.Reranker. The search engine itself holds no HTTP client; a binary that
// searches with the built-in hashing embedder does not link this package.
//
// # Credentials
//
// Both clients call the provider with the CALLER's API key, never a platform key: by default
// [CallerAPIKey] takes it from the agentfiles.AuthContext in the request's context, and a
// [CredentialFunc] in the options can supply it otherwise. For asynchronous indexing the
// search.Indexer hands the key over through a sealed envelope (package search/vault); the
// clients report that they need it (search.CallerCredentialUser).
//
// # Errors
//
// Every failure is an *agentfiles.Error: MODEL_ERROR (retryable, as every outside provider's
// failure is, chat models' too) when the provider cannot be reached, answers with an HTTP error
// or with a body that is not its protocol; TIMEOUT when it does not answer in time; CREDENTIAL_UNAVAILABLE when there is no caller key; INVALID_CONFIG for an empty or
// malformed endpoint. A provider's own error message is passed on bounded in length, cut on a
// character boundary, with keys and bearer tokens redacted; the key never reaches a log.
//
// # Configuration
//
// search.LoadConfig reads the rerank section of the service configuration; [RerankOptions]
// turns it into the options of [NewCohereReranker]:
//
//	reranker, err := provider.NewCohereReranker(cfg.Search.Rerank.Endpoint, provider.RerankOptions(cfg.Search.Rerank))
package provider
