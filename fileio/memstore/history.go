package memstore

import (
	"context"
	"slices"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

var _ driver.Historian = (*readTx)(nil)

// keepVersion records that the transaction replaced old, the version of path, at now.
// It was the path's content from feed position from until position to.
func (tx *writeTx) keepVersion(path string, old *fileRec, now time.Time, deleted bool, from, to int64) {
	if tx.opts.HistoryVersions <= 0 {
		return
	}
	tx.kept = append(tx.kept, keptVersion{path: path, v: versionRec{rec: old, replacedAt: now, deleted: deleted,
		purgeAfter: now.Add(max(tx.opts.HistoryRetention, 0)), from: from, to: to}})
}

// lastVersion is the highest version number path has had: kept, or replaced in this transaction.
func (tx *writeTx) lastVersion(path string) int64 {
	var v int64
	if h := tx.p.history[path]; len(h) > 0 {
		v = h[len(h)-1].rec.version
	}
	for _, k := range tx.kept {
		if k.path == path {
			v = max(v, k.v.rec.version)
		}
	}
	return v
}

// keptBytes is the size of the versions the transaction replaced.
func (tx *readTx) keptBytes() int64 {
	if tx.kept == nil {
		return 0
	}
	var n int64
	for _, k := range *tx.kept {
		n += k.v.rec.info.SizeBytes
	}
	return n
}

// keep commits the versions tx replaced and drops those past the retention: beyond the last
// HistoryVersions of their path, or replaced more than HistoryRetention before now, unless a
// checkpoint pins them. Caller holds p.mu, and the feed is committed.
func (p *project) keep(tx *writeTx, now time.Time) {
	if p.history == nil && len(tx.kept) == 0 {
		return
	}
	if p.history == nil {
		p.history = map[string][]*versionRec{}
	}
	touched := map[string]bool{}
	for _, k := range tx.kept {
		v := k.v
		p.history[k.path] = append(p.history[k.path], &v)
		p.historyBytes += v.rec.info.SizeBytes
		touched[k.path] = true
	}
	keepN := int64(tx.opts.HistoryVersions)
	sweep := touched
	if !p.nextPurge.IsZero() && !p.nextPurge.After(now) {
		sweep = nil // some version expired: look at every path
		p.nextPurge = time.Time{}
	}
	paths := sweep
	if paths == nil {
		paths = make(map[string]bool, len(p.history))
		for path := range p.history {
			paths[path] = true
		}
	}
	for path := range paths {
		vs := p.history[path]
		if len(vs) == 0 {
			delete(p.history, path)
			continue
		}
		last := vs[len(vs)-1].rec.version
		committed := readTx{p: p}
		kept := slices.DeleteFunc(vs, func(v *versionRec) bool {
			drop := (!v.purgeAfter.After(now) || (touched[path] && v.rec.version <= last-keepN)) && !committed.pinned(v.from, v.to)
			if drop {
				p.historyBytes -= v.rec.info.SizeBytes
			}
			return drop
		})
		if len(kept) == 0 {
			delete(p.history, path)
			continue
		}
		p.history[path] = kept
		for _, v := range kept {
			if !v.purgeAfter.After(now) {
				continue // expired but pinned: deleting the checkpoint sweeps it
			}
			if p.nextPurge.IsZero() || v.purgeAfter.Before(p.nextPurge) {
				p.nextPurge = v.purgeAfter
			}
		}
	}
}

// Versions implements driver.Historian.
func (tx *readTx) Versions(ctx context.Context, path string) ([]driver.VersionInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []driver.VersionInfo
	if rec := tx.lookup(path); rec != nil {
		out = append(out, driver.VersionInfo{Version: rec.version, SizeBytes: rec.info.SizeBytes, SHA256: fileio.SHA256Hex(rec.content),
			WrittenAt: rec.info.UpdatedAt, Current: true})
	}
	for _, v := range tx.versions(path) {
		out = append(out, driver.VersionInfo{Version: v.rec.version, SizeBytes: v.rec.info.SizeBytes, SHA256: fileio.SHA256Hex(v.rec.content),
			WrittenAt: v.rec.info.UpdatedAt, ReplacedAt: v.replacedAt, Deleted: v.deleted})
	}
	return out, nil
}

// versions returns the live kept versions of path, newest first, the transaction's own included.
func (tx *readTx) versions(path string) []*versionRec {
	now := tx.now().UTC()
	var out []*versionRec
	if tx.kept != nil {
		for i := len(*tx.kept) - 1; i >= 0; i-- {
			if k := (*tx.kept)[i]; k.path == path {
				v := k.v
				out = append(out, &v)
			}
		}
	}
	h := tx.p.history[path]
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].purgeAfter.After(now) {
			out = append(out, h[i])
		}
	}
	return out
}

// GetVersion implements driver.Historian.
func (tx *readTx) GetVersion(ctx context.Context, path string, version int64) (driver.File, error) {
	if err := ctx.Err(); err != nil {
		return driver.File{}, err
	}
	if rec := tx.lookup(path); rec != nil && rec.version == version {
		return driver.File{FileInfo: rec.info, Content: append([]byte(nil), rec.content...)}, nil
	}
	for _, v := range tx.versions(path) {
		if v.rec.version == version {
			return driver.File{FileInfo: v.rec.info, Content: append([]byte(nil), v.rec.content...)}, nil
		}
	}
	return driver.File{}, agentfiles.NewError(agentfiles.CodeNotFound, "no such version", path)
}

var (
	_ driver.HistoryPurger = (*writeTx)(nil)
	_ driver.HistorySizer  = (*readTx)(nil)
)

// KeptBytes implements driver.HistorySizer.
func (tx *readTx) KeptBytes(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return tx.usage().Kept, nil
}

// DropVersions implements driver.HistoryPurger: the committed versions of path and below go
// at commit, the ones this transaction kept at once.
func (tx *writeTx) DropVersions(ctx context.Context, path string) (int, int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	n, bytes := 0, int64(0)
	for p, vs := range tx.p.history {
		if !atOrBelow(p, path) || tx.isDropped(p) {
			continue
		}
		for _, v := range vs {
			if !tx.pinned(v.from, v.to) {
				n, bytes = n+1, bytes+v.rec.info.SizeBytes
			}
		}
		tx.drop = append(tx.drop, p)
	}
	tx.kept = slices.DeleteFunc(tx.kept, func(k keptVersion) bool {
		if atOrBelow(k.path, path) && !tx.pinned(k.v.from, k.v.to) {
			n, bytes = n+1, bytes+k.v.rec.info.SizeBytes
			return true
		}
		return false
	})
	return n, bytes, nil
}

func (tx *readTx) isDropped(path string) bool {
	return tx.dropped != nil && slices.Contains(*tx.dropped, path)
}

// droppedBytes is the size of the committed versions the transaction drops.
func (tx *readTx) droppedBytes() int64 {
	if tx.dropped == nil {
		return 0
	}
	var n int64
	for _, path := range *tx.dropped {
		for _, v := range tx.p.history[path] {
			if !tx.pinned(v.from, v.to) {
				n += v.rec.info.SizeBytes
			}
		}
	}
	return n
}

// dropVersions removes the kept versions of paths that no checkpoint pins. Caller holds p.mu,
// and the feed is committed.
func (p *project) dropVersions(paths []string) {
	committed := readTx{p: p}
	for _, path := range paths {
		kept := slices.DeleteFunc(p.history[path], func(v *versionRec) bool {
			if committed.pinned(v.from, v.to) {
				return false
			}
			p.historyBytes -= v.rec.info.SizeBytes
			return true
		})
		if len(kept) == 0 {
			delete(p.history, path)
		} else {
			p.history[path] = kept
		}
	}
}

// atOrBelow reports whether p is dir or lies below it ("" holds every path).
func atOrBelow(p, dir string) bool { return driver.AtOrBelow(p, dir) }
