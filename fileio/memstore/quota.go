package memstore

import (
	"context"
	"sync"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

// tenantUsage is what a tenant's projects hold together, kept up to date by every commit.
type tenantUsage struct {
	mu       sync.Mutex // held by a commit from its quota check to its counts
	files    int64      // active files of all the tenant's projects
	projects int64      // the tenant's projects that count (driver.Usage.Counted)
}

// tenant returns the counts of tenant, creating them at zero.
func (s *Store) tenant(tenant string) *tenantUsage {
	s.mu.Lock()
	defer s.mu.Unlock()
	tu := s.tenants[tenant]
	if tu == nil {
		tu = &tenantUsage{}
		s.tenants[tenant] = tu
	}
	return tu
}

// others is what the tenant's projects but one, whose committed usage is own, hold.
// Caller holds tu.mu.
func (tu *tenantUsage) others(own driver.Usage) driver.TenantUsage {
	return driver.TenantUsage{Files: tu.files - own.Files, Projects: tu.projects - counted(own)}
}

// count records that a commit took a project from before to after. Caller holds tu.mu.
func (tu *tenantUsage) count(before, after driver.Usage) {
	tu.files += after.Files - before.Files
	tu.projects += counted(after) - counted(before)
}

func counted(u driver.Usage) int64 {
	if u.Counted() {
		return 1
	}
	return 0
}

// usage is the committed usage of p. Caller holds p.mu or the write lock.
func (p *project) usage() driver.Usage {
	return driver.Usage{Files: int64(len(p.files)), Bytes: p.bytes + p.historyBytes + p.feed.bytes, Kept: p.historyBytes, Events: p.feed.bytes}
}

// usage is the project's usage as the transaction leaves it: its files, the versions the
// history keeps once the commit has dropped those past the count limit (as project.keep
// drops them; versions whose retention ran out are left to the commit's sweep, as pgstore
// leaves them to its purge), and the events, the transaction's own included.
func (tx *readTx) usage() driver.Usage {
	u := tx.p.usage()
	for path, rec := range tx.overlay {
		if old := tx.p.files[path]; old != nil {
			u.Files--
			u.Bytes -= old.info.SizeBytes
		}
		if rec != nil {
			u.Files++
			u.Bytes += rec.info.SizeBytes
		}
	}
	kept, events := tx.keptBytes()-tx.droppedBytes()-tx.countDropped(), tx.eventBytes()
	u.Kept += kept
	u.Events += events
	u.Bytes += kept + events
	return u
}

var _ driver.UsageReader = (*readTx)(nil)

// Usage implements driver.UsageReader.
func (tx *readTx) Usage(ctx context.Context) (driver.Usage, error) {
	return tx.usage(), ctx.Err()
}

// wrote reports whether the transaction created or replaced a file.
func (tx *writeTx) wrote() bool {
	for _, rec := range tx.overlay {
		if rec != nil {
			return true
		}
	}
	return false
}

// countDropped is the size of the versions the history's count limit drops at commit: of each
// path the transaction kept versions of, those more than keepN behind its newest kept version
// that no checkpoint pins.
func (tx *readTx) countDropped() int64 {
	if tx.kept == nil || len(*tx.kept) == 0 {
		return 0
	}
	last := map[string]int64{} // per path, the newest version the transaction kept
	for _, k := range *tx.kept {
		last[k.path] = max(last[k.path], k.v.rec.version)
	}
	var n int64
	drops := func(path string, v *versionRec) bool {
		return v.rec.version <= last[path]-int64(tx.keepN) && !tx.pinned(v.from, v.to)
	}
	for path := range last {
		if !tx.isDropped(path) { // DropVersions takes the committed ones that are not pinned
			for _, v := range tx.p.history[path] {
				if drops(path, v) {
					n += v.rec.info.SizeBytes
				}
			}
		}
	}
	for _, k := range *tx.kept {
		if drops(k.path, &k.v) {
			n += k.v.rec.info.SizeBytes
		}
	}
	return n
}

// eventBytes is what the transaction's events add to the project's bytes.
func (tx *readTx) eventBytes() int64 {
	if tx.events == nil {
		return 0
	}
	var n int64
	for _, e := range *tx.events {
		n += driver.EventBytes(e.Path)
	}
	return n
}
