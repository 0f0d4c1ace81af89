package memstore

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

// outbox is the job queue of a Store: at most one job per (scope, path).
type outbox struct {
	now func() time.Time

	mu     sync.Mutex
	jobs   map[jobKey]*jobRec
	scopes map[driver.Scope]map[string]*jobRec // the same jobs by project, for ScopeJobs
	nextID int64
	wake   chan struct{} // closed (and replaced) whenever a job becomes available
	// lastTenant is the tenant the last claim served last: the next claim starts after it.
	lastTenant string
}

type jobKey struct {
	scope driver.Scope
	path  string
}

type jobRec struct {
	job         driver.Job
	availableAt time.Time // not claimable before
	leasedUntil time.Time // claimed and invisible until then
	lastError   string
}

func (o *outbox) init(now func() time.Time) {
	o.now = now
	o.jobs = map[jobKey]*jobRec{}
	o.scopes = map[driver.Scope]map[string]*jobRec{}
	o.wake = make(chan struct{})
}

// enqueue records one job per path changed by tx, superseding pending jobs.
func (o *outbox) enqueue(scope driver.Scope, tx *writeTx, commitAt time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, path := range tx.order {
		rec := tx.overlay[path]
		op, updatedAt, cred := driver.JobDelete, time.Time{}, ""
		if rec != nil {
			op, updatedAt, cred = driver.JobUpsert, rec.info.UpdatedAt, tx.creds[path].CredentialRef
		}
		key := jobKey{scope, path}
		jr := o.jobs[key]
		if jr == nil {
			o.nextID++
			jr = &jobRec{job: driver.Job{ID: o.nextID, Scope: scope, Path: path}}
			o.jobs[key] = jr
			if o.scopes[scope] == nil {
				o.scopes[scope] = map[string]*jobRec{}
			}
			o.scopes[scope][path] = jr
		}
		jr.job.Op = op
		jr.job.FileUpdatedAt = updatedAt
		jr.job.CredentialRef = cred
		jr.job.EnqueuedAt = commitAt
		jr.job.Attempts = 0
		jr.job.Version++
		jr.availableAt, jr.leasedUntil, jr.lastError = time.Time{}, time.Time{}, ""
	}
	o.broadcast()
}

// broadcast wakes every WaitForJobs. Caller holds o.mu.
func (o *outbox) broadcast() {
	close(o.wake)
	o.wake = make(chan struct{})
}

func (jr *jobRec) readyAt() time.Time {
	if jr.leasedUntil.After(jr.availableAt) {
		return jr.leasedUntil
	}
	return jr.availableAt
}

// ClaimJobs implements driver.Outbox: tenants take turns, starting after the tenant the
// previous claim served last; each tenant's oldest job first.
func (s *Store) ClaimJobs(ctx context.Context, limit int, lease time.Duration) ([]driver.Job, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	o := &s.outbox
	now := o.now()
	o.mu.Lock()
	defer o.mu.Unlock()
	ready := map[string][]*jobRec{} // by tenant
	for _, jr := range o.jobs {
		if !jr.readyAt().After(now) {
			ready[jr.job.Scope.Tenant] = append(ready[jr.job.Scope.Tenant], jr)
		}
	}
	tenants := make([]string, 0, len(ready))
	for t, jobs := range ready {
		tenants = append(tenants, t)
		sort.Slice(jobs, func(i, j int) bool {
			a, b := jobs[i].job, jobs[j].job
			if !a.EnqueuedAt.Equal(b.EnqueuedAt) {
				return a.EnqueuedAt.Before(b.EnqueuedAt)
			}
			return a.ID < b.ID
		})
	}
	sort.Strings(tenants)
	first := sort.SearchStrings(tenants, o.lastTenant)
	if first < len(tenants) && tenants[first] == o.lastTenant {
		first++
	}
	tenants = append(tenants[first:], tenants[:first]...)
	var claimed []*jobRec
	for turn := 0; len(claimed) < limit; turn++ {
		took := false
		for _, t := range tenants {
			if jobs := ready[t]; turn < len(jobs) && len(claimed) < limit {
				claimed, took = append(claimed, jobs[turn]), true
				o.lastTenant = t
			}
		}
		if !took {
			break
		}
	}
	sort.Slice(claimed, func(i, j int) bool {
		a, b := claimed[i].job, claimed[j].job
		if !a.EnqueuedAt.Equal(b.EnqueuedAt) {
			return a.EnqueuedAt.Before(b.EnqueuedAt)
		}
		return a.ID < b.ID
	})
	out := make([]driver.Job, len(claimed))
	for i, jr := range claimed {
		jr.leasedUntil = now.Add(lease)
		out[i] = jr.job
	}
	return out, nil
}

// current returns the pending record of job if it is still that version, else nil.
func (o *outbox) current(job driver.Job) *jobRec {
	jr := o.jobs[jobKey{job.Scope, job.Path}]
	if jr == nil || jr.job.ID != job.ID || jr.job.Version != job.Version {
		return nil
	}
	return jr
}

// CompleteJob implements driver.Outbox.
func (s *Store) CompleteJob(ctx context.Context, job driver.Job) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	o := &s.outbox
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.current(job) != nil {
		delete(o.jobs, jobKey{job.Scope, job.Path})
		if byPath := o.scopes[job.Scope]; len(byPath) <= 1 {
			delete(o.scopes, job.Scope)
		} else {
			delete(byPath, job.Path)
		}
	}
	return nil
}

// RetryJob implements driver.Outbox.
func (s *Store) RetryJob(ctx context.Context, job driver.Job, notBefore time.Time, lastError string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	o := &s.outbox
	o.mu.Lock()
	defer o.mu.Unlock()
	jr := o.current(job)
	if jr == nil {
		return nil
	}
	jr.job.Attempts++
	jr.availableAt = notBefore
	jr.leasedUntil = time.Time{}
	jr.lastError = lastError
	o.broadcast()
	return nil
}

// WaitForJobs implements driver.Outbox: it returns at once when a job is claimable, else when
// one is enqueued or released, when the earliest lease or retry delay runs out, or after maxWait.
func (s *Store) WaitForJobs(ctx context.Context, maxWait time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	o := &s.outbox
	now := o.now()
	o.mu.Lock()
	wake := o.wake
	wait := maxWait
	for _, jr := range o.jobs {
		if d := jr.readyAt().Sub(now); d < wait {
			wait = d
		}
	}
	o.mu.Unlock()
	return driver.WaitForSignal(ctx, wake, wait)
}

// PendingJobs implements driver.Outbox.
func (s *Store) PendingJobs(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	o := &s.outbox
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.jobs), nil
}

var _ driver.ScopeJobLister = (*Store)(nil)

// ScopeJobs implements driver.ScopeJobLister from the project's own pending jobs, never its
// files.
func (s *Store) ScopeJobs(ctx context.Context, scope driver.Scope, prefix string, limit int) ([]driver.Job, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := &s.outbox
	o.mu.Lock()
	var out []driver.Job
	for path, jr := range o.scopes[scope] {
		if strings.HasPrefix(path, prefix) {
			j := jr.job
			j.CredentialRef = ""
			out = append(out, j)
		}
	}
	o.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].EnqueuedAt.Equal(out[j].EnqueuedAt) {
			return out[i].EnqueuedAt.After(out[j].EnqueuedAt)
		}
		return out[i].ID > out[j].ID
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
