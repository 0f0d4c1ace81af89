package fileio

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles"
)

// RateLimiter is a token bucket per tenant (agentfiles.AuthContext.TenantID): each request
// takes one token, buckets refill at a fixed rate up to a burst. A Service has one (see
// Service.RateLimiter and Options.RateLimiter); hand the same one to other services, such as
// search.SearcherOptions.RateLimiter, so that one bucket per tenant covers all of a tenant's
// requests. It is safe for concurrent use; a nil *RateLimiter allows everything.
type RateLimiter struct {
	perSecond float64
	burst     float64
	now       func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

// sweepEvery is how often idle (refilled) buckets are dropped so the map stays small.
const sweepEvery = time.Minute

// NewRateLimiter returns a limiter of perSecond tokens per second and tenant, holding at most
// burst (at least 1), on the clock now (nil: time.Now). perSecond <= 0 means no limit: it
// returns nil, which allows everything.
func NewRateLimiter(perSecond float64, burst int, now func() time.Time) *RateLimiter {
	if perSecond <= 0 {
		return nil
	}
	if now == nil {
		now = time.Now
	}
	burst = max(burst, 1)
	return &RateLimiter{perSecond: perSecond, burst: float64(burst), now: now, buckets: map[string]*bucket{}, lastSweep: now()}
}

// Allow takes one token for tenant or returns a RATE_LIMITED *agentfiles.Error saying when to
// retry. A nil limiter allows everything.
func (r *RateLimiter) Allow(tenant string) error {
	if r == nil {
		return nil
	}
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.lastSweep) > sweepEvery {
		r.sweep(now)
	}
	b := r.buckets[tenant]
	if b == nil {
		b = &bucket{tokens: r.burst, last: now}
		r.buckets[tenant] = b
	}
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = math.Min(r.burst, b.tokens+dt*r.perSecond)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return nil
	}
	wait := time.Duration((1 - b.tokens) / r.perSecond * float64(time.Second))
	return agentfiles.NewError(agentfiles.CodeRateLimited, fmt.Sprintf(
		"too many requests for this API key (limit %g per second, burst %g); retry after %s",
		r.perSecond, r.burst, wait.Round(time.Millisecond)), "")
}

func (r *RateLimiter) sweep(now time.Time) {
	for k, b := range r.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*r.perSecond >= r.burst {
			delete(r.buckets, k)
		}
	}
	r.lastSweep = now
}
