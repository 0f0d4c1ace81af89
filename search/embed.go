package search

import (
	"context"
	"math"
	"strconv"
	"strings"
	"unicode"
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
	forEachTerm(text, func(t string) {
		add('t', t, weightTerm)
		if prev != "" {
			add('b', prev+" "+t, weightBigram)
		}
		prev = t
	})
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

// Dot returns the dot product of a and b (the cosine similarity for L2-normalised vectors).
// It panics if the lengths differ. Indexes use it so that every index scores identically: the
// products are rounded to float32 before they are added (float32(x*y) is never fused into a
// multiply-add), so the floats are the same on every architecture.
func Dot(a, b []float32) float32 {
	if len(a) != len(b) {
		panic("search.Dot: length mismatch")
	}
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	for len(a) >= 8 {
		x, y := a[:8:8], b[:8:8] // one bounds check per eight products
		s0 += float32(x[0] * y[0])
		s1 += float32(x[1] * y[1])
		s2 += float32(x[2] * y[2])
		s3 += float32(x[3] * y[3])
		s4 += float32(x[4] * y[4])
		s5 += float32(x[5] * y[5])
		s6 += float32(x[6] * y[6])
		s7 += float32(x[7] * y[7])
		a, b = a[8:], b[8:]
	}
	for i := range a {
		s0 += float32(a[i] * b[i])
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// SparseDot is Dot(a, q), bit for bit, for a vector a stored with a stride,
// a[j] = data[off+j*stride], read only at the dimensions nz lists: the indexes, in increasing
// order, of every element of q that is not zero. It adds the same products to the same partial
// sums in the same order as Dot; the products it skips are exact zeros, which leave those sums
// unchanged as long as a is finite. Indexes that keep vectors dimension-major (search/memindex)
// use it to score a few chunks against a sparse query without gathering whole rows.
func SparseDot(data []float32, off, stride int, q []float32, nz []int) float32 {
	var s [8]float32
	full := len(q) &^ 7 // dimensions Dot sums eight at a time; the rest go to s[0] after them
	for _, j := range nz {
		p := float32(data[off+j*stride] * q[j])
		if j < full {
			s[j&7] += p
		} else {
			s[0] += p
		}
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
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
