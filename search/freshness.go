package search

import (
	"sort"
	"sync"
	"time"
)

// FreshnessStats summarise how long changes took to become searchable: from the commit of the
// mutation (Job.EnqueuedAt) to the moment the index held the new version (or the deletion).
type FreshnessStats struct {
	Samples  int           // samples in the window (the most recent freshnessWindow)
	P50      time.Duration // median
	P95      time.Duration
	P99      time.Duration
	Max      time.Duration
	SLOP95   time.Duration // the objective (settings.mcp.files.index.slo_p95_seconds)
	MeetsSLO bool          // P95 <= SLOP95 (true with no samples)
}

const freshnessWindow = 8192

// freshness is a ring buffer of recent samples. It is safe for concurrent use.
type freshness struct {
	mu      sync.Mutex
	samples []time.Duration
	next    int
}

func (f *freshness) add(d time.Duration) {
	if d < 0 {
		d = 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.samples) < freshnessWindow {
		f.samples = append(f.samples, d)
		return
	}
	f.samples[f.next] = d
	f.next = (f.next + 1) % freshnessWindow
}

func (f *freshness) stats(slo time.Duration) FreshnessStats {
	f.mu.Lock()
	s := append([]time.Duration(nil), f.samples...)
	f.mu.Unlock()
	out := FreshnessStats{Samples: len(s), SLOP95: slo, MeetsSLO: true}
	if len(s) == 0 {
		return out
	}
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	out.P50, out.P95, out.P99, out.Max = percentile(s, 50), percentile(s, 95), percentile(s, 99), s[len(s)-1]
	out.MeetsSLO = slo <= 0 || out.P95 <= slo
	return out
}

// percentile returns the p-th percentile (nearest rank) of sorted durations (0 when empty).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.999999) - 1
	rank = max(0, min(rank, len(sorted)-1))
	return sorted[rank]
}
