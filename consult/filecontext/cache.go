package filecontext

import (
	"encoding/binary"
	"hash/maphash"
	"strings"
	"sync"

	"github.com/agentfiles/agentfiles/consult"
)

// CachePrices are a host's prices for input tokens, in any currency, per million tokens. They
// only turn [CacheStats] token counts into a cost estimate.
type CachePrices struct {
	// CachedPerMTok is the price of input read from the prompt cache (Anthropic: cache read;
	// OpenAI: cached input).
	CachedPerMTok float64 `json:"cached_per_mtok"`
	// UncachedPerMTok is the price of every other input token (Anthropic: cache write, since
	// every uncached token of a request with a breakpoint is written; OpenAI: input).
	UncachedPerMTok float64 `json:"uncached_per_mtok"`
}

// RequestCache is the prompt-cache accounting of one request: how much of it a provider can
// serve from its cache because it repeats the start of the previous request, and how much is
// new. Counts are those of the [consult.TokenCounter] (an estimate by default) over what the
// model reads — the system prompt, message texts, tool calls and tool results — without the
// provider's per-message framing or the tool declaration.
type RequestCache struct {
	RequestTokens consult.Tokens `json:"request_tokens"`
	// CachedTokens are the system prompt and the leading messages that are byte-identical to
	// those of the previous request: the prefix a provider's cache holds.
	CachedTokens consult.Tokens `json:"cached_tokens"`
	// UncachedTokens are the rest: new messages, and everything from the first message that
	// differs from the previous request.
	UncachedTokens consult.Tokens `json:"uncached_tokens"`
	// Break is true when part of the previous request is not a prefix of this one (a reset
	// edited an earlier result, or the system prompt changed): the cache was broken, not merely
	// extended. The first request is not a break.
	Break bool `json:"break,omitempty"`
	// Cost is the estimated input cost at [Options.Prices]; 0 without prices.
	Cost float64 `json:"cost,omitempty"`
}

// CacheStats is the prompt-cache accounting of a conversation: the last request and the running
// totals over every request so far. See [Context.CacheStats] and [CacheMeter].
type CacheStats struct {
	Requests       int            `json:"requests"`
	Breaks         int            `json:"breaks"` // requests with Break set
	RequestTokens  consult.Tokens `json:"request_tokens"`
	CachedTokens   consult.Tokens `json:"cached_tokens"`
	UncachedTokens consult.Tokens `json:"uncached_tokens"`
	Cost           float64        `json:"cost,omitempty"` // at Options.Prices; 0 without prices
	Last           RequestCache   `json:"last"`
}

// UncachedShare is UncachedTokens / RequestTokens: the share of all request tokens a provider
// bills at the uncached price (0 before the first request).
func (s CacheStats) UncachedShare() float64 {
	if s.RequestTokens == 0 {
		return 0
	}
	return float64(s.UncachedTokens) / float64(s.RequestTokens)
}

// add counts r, the accounting of the request just sent, into the totals and makes it Last.
func (s *CacheStats) add(r RequestCache) {
	s.Requests++
	if r.Break {
		s.Breaks++
	}
	s.RequestTokens += r.RequestTokens
	s.CachedTokens += r.CachedTokens
	s.UncachedTokens += r.UncachedTokens
	s.Cost += r.Cost
	s.Last = r
}

// CacheMeter measures the prompt-cache economics of a conversation, request by request: give it
// each request as it is sent ([CacheMeter.Record]) and it reports how much repeats the previous
// request. A [Context] keeps one (see [Context.CacheStats]); a host that owns its message list
// keeps its own. It is safe for concurrent use.
type CacheMeter struct {
	counter consult.TokenCounter
	prices  *CachePrices

	mu    sync.Mutex
	prev  []cacheUnit
	stats CacheStats
}

// cacheUnit is one part of a request (the system prompt, then each message) as the meter
// remembers it: a hash of its bytes and its size in tokens.
type cacheUnit struct {
	hash   uint64
	size   int
	tokens consult.Tokens
}

var cacheSeed = maphash.MakeSeed()

// NewCacheMeter returns a meter that counts with opts.Counter and prices with opts.Prices.
func NewCacheMeter(opts Options) *CacheMeter {
	opts = opts.withDefaults()
	return &CacheMeter{counter: opts.Counter, prices: opts.Prices}
}

// Record accounts for one request made of system and history (the messages as sent) and
// returns its accounting; [CacheMeter.Stats] has the totals. A request counts as cached up to the
// first part (the system prompt, then message by message) whose bytes differ from the previous
// request's part at the same position; a provider caches at the same or a finer grain.
func (m *CacheMeter) Record(system string, history []Message) RequestCache {
	return m.record(system, history, toolResultText)
}

// record is Record with the text of tool messages from toolText.
func (m *CacheMeter) record(system string, history []Message, toolText func(*Message) string) RequestCache {
	units := make([]cacheUnit, 0, len(history)+1)
	m.mu.Lock()
	defer m.mu.Unlock()
	var h maphash.Hash
	h.SetSeed(cacheSeed)
	add := func(text string) {
		u := cacheUnit{hash: h.Sum64(), size: len(text)}
		if i := len(units); i < len(m.prev) && m.prev[i].hash == u.hash && m.prev[i].size == u.size {
			u.tokens = m.prev[i].tokens // unchanged: no need to count it again
		} else {
			u.tokens = m.counter.CountTokens(text)
		}
		units = append(units, u)
	}
	h.Reset()
	writeField(&h, system)
	add(system)
	for i := range history {
		h.Reset()
		add(hashMessage(&h, &history[i], toolText))
	}

	var r RequestCache
	same := 0
	for same < len(units) && same < len(m.prev) && units[same].hash == m.prev[same].hash && units[same].size == m.prev[same].size {
		same++
	}
	for i, u := range units {
		r.RequestTokens += u.tokens
		if i < same {
			r.CachedTokens += u.tokens
		}
	}
	r.UncachedTokens = r.RequestTokens - r.CachedTokens
	r.Break = same < len(m.prev)
	if m.prices != nil {
		r.Cost = (float64(r.CachedTokens)*m.prices.CachedPerMTok + float64(r.UncachedTokens)*m.prices.UncachedPerMTok) / 1e6
	}
	m.prev = units
	m.stats.add(r)
	return r
}

// Stats returns the accounting of the last request and the totals so far.
func (m *CacheMeter) Stats() CacheStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}

// hashMessage writes what identifies a message in a request to h — its role, the IDs of its
// tool calls or of the call it answers, and the text the model reads — and returns that text:
// a tool result, or the message text followed by each tool call's name and input.
func hashMessage(h *maphash.Hash, m *Message, toolText func(*Message) string) string {
	writeField(h, string(m.Role))
	writeField(h, m.ToolCallID)
	var text string
	if m.Role == RoleTool {
		text = toolText(m)
	} else {
		var b strings.Builder
		b.WriteString(m.Text)
		for _, tc := range m.ToolCalls {
			writeField(h, tc.ID)
			b.WriteString(" ")
			b.WriteString(tc.Name)
			b.WriteString(" ")
			b.Write(objectOrEmpty(tc.Input))
		}
		text = b.String()
	}
	writeField(h, text)
	return text
}

// writeField writes s to h with its length first, so that fields cannot run into each other.
func writeField(h *maphash.Hash, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.WriteString(s)
}
