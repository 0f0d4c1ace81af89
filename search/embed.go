package search

import (
	"context"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentfiles/agentfiles/search/indexdriver"
)

// Embedder turns texts into vectors. Implementations return one L2-normalised vector of
// Dimensions() floats per input text, in input order, and must be safe for concurrent use.
// Model() names the model; vectors of different models are never compared.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Model() string
	Dimensions() int
}

// CallerCredentialUser is implemented by embedders and rerankers that call an external API with
// the caller's own API key (taken from the context's agentfiles.AuthContext). The indexer opens
// the sealed credential envelope of a job only for such embedders.
type CallerCredentialUser interface {
	UsesCallerCredential() bool
}

func usesCallerCredential(v any) bool {
	u, ok := v.(CallerCredentialUser)
	return ok && u.UsesCallerCredential()
}

// Calibration is what the Searcher needs to know about an embedder's similarity scores to
// rank with them: how much they weigh against BM25 in fused scores, and how similar a chunk
// without any of the query's words must be to count as a match at all. An Embedder that knows
// implements [CalibratedEmbedder]; others get [DefaultCalibration]. The options
// SemanticWeight/LexicalWeight and MinSemanticScore (semantic_weight, lexical_weight,
// min_semantic_score in the configuration) override it.
type Calibration struct {
	// SemanticWeight is the weight of the semantic score in fused scores, in [0, 1]; the
	// lexical (BM25) score gets 1 − SemanticWeight.
	SemanticWeight float64
	// MinSemanticScore: a chunk in which none of the query's terms occurs is a result only when
	// its similarity to the query is above this.
	MinSemanticScore float64
}

// CalibratedEmbedder is an [Embedder] that supplies its own [Calibration].
type CalibratedEmbedder interface {
	Embedder
	Calibration() Calibration
}

// DefaultCalibration is the calibration of an embedder that does not supply one (an
// OpenAI-compatible model, say): even fusion weights (0.5 and 0.5), and any positive similarity
// counts as evidence. Configure min_semantic_score for such a model when its similarities of
// unrelated texts are well above 0 (as most neural models' are).
func DefaultCalibration() Calibration { return Calibration{SemanticWeight: 0.5, MinSemanticScore: 0} }

// CalibrationOf returns e's Calibration, DefaultCalibration when it supplies none.
func CalibrationOf(e Embedder) Calibration {
	if c, ok := e.(CalibratedEmbedder); ok {
		return c.Calibration()
	}
	return DefaultCalibration()
}

// DefaultHashingDimensions is the vector size of the zero-config hashing embedder.
const DefaultHashingDimensions = 256

// HashingEmbedder is a deterministic, dependency-free embedder: it hashes features of the text
// into a fixed number of signed buckets (the "hashing trick") and L2-normalises the result.
// Features are the analysed terms (see Tokenize), adjacent term pairs, and character trigrams
// of each lower-cased word (with word-boundary marks), so that related word forms and typos
// still overlap. It needs no network and no model files, and the same text always gives the
// same vector. It is not a neural model: it captures shared vocabulary and spelling, not
// synonyms.
//
// A HashingEmbedder is immutable and safe for concurrent use.
type HashingEmbedder struct {
	dims int
}

// NewHashingEmbedder returns a hashing embedder with the given number of dimensions
// (DefaultHashingDimensions when dims <= 0).
func NewHashingEmbedder(dims int) *HashingEmbedder {
	if dims <= 0 {
		dims = DefaultHashingDimensions
	}
	return &HashingEmbedder{dims: dims}
}

// Model returns "hashing-v1-<dims>".
func (h *HashingEmbedder) Model() string { return "hashing-v1-" + strconv.Itoa(h.dims) }

// Dimensions returns the vector size.
func (h *HashingEmbedder) Dimensions() int { return h.dims }

// Calibration returns the hashing embedder's fusion weight and similarity floor, chosen on
// public and authored test collections (see the package documentation, "Ranking defaults, and
// the evidence for them"): semantic weight 0.1, and a floor of 0.55 (0.65 below 128
// dimensions) that lies above the similarities unrelated texts reach through shared character
// trigrams and colliding buckets.
func (h *HashingEmbedder) Calibration() Calibration {
	return Calibration{SemanticWeight: 0.1, MinSemanticScore: hashingFloor(h.dims)}
}

// Embed returns one vector per text. It never fails except on a cancelled context.
func (h *HashingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = h.embedOne(t)
	}
	return out, nil
}

const (
	weightTerm    = 1.0
	weightBigram  = 0.5
	weightTrigram = 0.25
)

func (h *HashingEmbedder) embedOne(text string) []float32 {
	v := make([]float32, h.dims)
	add := func(kind byte, feature string, w float32) {
		x := fnv1a(kind, feature)
		idx := int(x % uint64(h.dims))
		if x&(1<<63) != 0 {
			w = -w
		}
		v[idx] += w
	}
	prev := ""
	for _, t := range indexdriver.Tokenize(text) {
		add('t', t, weightTerm)
		if prev != "" {
			add('b', prev+" "+t, weightBigram)
		}
		prev = t
	}
	for _, word := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		w := []rune("<" + strings.ToLower(word) + ">")
		for i := 0; i+3 <= len(w); i++ {
			add('c', string(w[i:i+3]), weightTrigram)
		}
	}
	Normalize(v)
	return v
}

// fnv1a is 64-bit FNV-1a over a kind byte and the feature.
func fnv1a(kind byte, s string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	x := uint64(offset)
	x ^= uint64(kind)
	x *= prime
	for i := 0; i < len(s); i++ {
		x ^= uint64(s[i])
		x *= prime
	}
	return x
}

// Normalize scales v to unit L2 length in place (a zero vector stays zero). Embedders return
// normalised vectors, so that a dot product is the cosine similarity.
func Normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}

// hashingFloor is the HashingEmbedder's MinSemanticScore for dims dimensions: about the
// 99th percentile of the best similarity that unrelated texts reach (see the package
// documentation), which colliding buckets raise at small sizes.
func hashingFloor(dims int) float64 {
	if dims < 128 {
		return 0.65
	}
	return 0.55
}
