package memstore

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

var (
	_ driver.FeedReader       = (*readTx)(nil)
	_ driver.CheckpointWriter = (*writeTx)(nil)
	_ driver.FeedWaiter       = (*Store)(nil)
)

// feed is the change feed and the checkpoints of one project. Written only while the
// project's writeLock and mu are held.
type feed struct {
	events      []feedEvent      // kept events, by position
	head        int64            // newest position
	pruned      int64            // events up to this position may be gone
	lastPos     map[string]int64 // per path, the position of its newest event
	checkpoints []checkpointRec  // by id (and so by position)
	lastID      int64
	bytes       int64 // driver.EventBytes of the kept events
}

// checkpointChanges are the checkpoints a transaction adds and deletes.
type checkpointChanges struct {
	added   []checkpointRec
	deleted []int64
}

// feedEvent is an Event with what pinning needs: the version it replaced and the position of
// the path's previous event.
type feedEvent struct {
	driver.Event
	prevVersion  int64 // 0 for a create
	prevPosition int64
	purgeAfter   time.Time
}

type checkpointRec struct {
	id        int64
	label     string
	position  int64
	createdAt time.Time
}

func (c checkpointRec) public() driver.Checkpoint {
	return driver.Checkpoint{ID: strconv.FormatInt(c.id, 10), Label: c.label, Position: c.position, CreatedAt: c.createdAt}
}

// record appends the event of a change the transaction made to path, and returns its position
// and the position of the path's previous event.
func (tx *writeTx) record(path string, kind driver.ChangeKind, version, prevVersion int64, content []byte) (pos, prevPos int64) {
	f := &tx.p.feed
	pos = f.head + int64(len(tx.events)) + 1
	prevPos, ok := tx.lastPos[path]
	if !ok {
		prevPos = f.lastPos[path]
	}
	if tx.lastPos == nil {
		tx.lastPos = map[string]int64{}
	}
	tx.lastPos[path] = pos
	e := feedEvent{Event: driver.Event{Position: pos, Path: path, Kind: kind, Version: version},
		prevVersion: prevVersion, prevPosition: prevPos}
	if kind != driver.ChangeDeleted {
		e.SHA256, e.SizeBytes = fileio.SHA256Hex(content), int64(len(content))
	}
	tx.events = append(tx.events, e)
	return pos, prevPos
}

// commitFeed appends the transaction's events and checkpoint changes, and drops the events
// past their retention that no checkpoint needs. Caller holds p.mu.
func (p *project) commitFeed(tx *writeTx, now time.Time) {
	f := &p.feed
	if f.lastPos == nil {
		f.lastPos = map[string]int64{}
	}
	purgeAfter := now.Add(driver.FeedRetention(tx.opts))
	for _, e := range tx.events {
		e.At, e.purgeAfter = now, purgeAfter
		f.events = append(f.events, e)
		f.bytes += driver.EventBytes(e.Path)
		f.lastPos[e.Path] = e.Position
		f.head = e.Position
	}
	f.checkpoints = slices.DeleteFunc(f.checkpoints, func(c checkpointRec) bool { return slices.Contains(tx.cp.deleted, c.id) })
	for _, c := range tx.cp.added {
		c.createdAt = now
		f.checkpoints = append(f.checkpoints, c)
		f.lastID = c.id
	}
	keepFrom := f.head
	if len(f.checkpoints) > 0 {
		keepFrom = f.checkpoints[0].position
	}
	n := 0
	for n < len(f.events) && f.events[n].Position <= keepFrom && !f.events[n].purgeAfter.After(now) {
		f.pruned = f.events[n].Position
		f.bytes -= driver.EventBytes(f.events[n].Path)
		n++
	}
	f.events = slices.Delete(f.events, 0, n)
	if len(tx.cp.deleted) > 0 {
		p.nextPurge = now // versions the checkpoints pinned may have expired: sweep them
	}
}

// checkpointList is the committed checkpoints, as the transaction changed them.
func (tx *readTx) checkpointList() []checkpointRec {
	out := tx.p.feed.checkpoints
	if tx.cp == nil || (len(tx.cp.added) == 0 && len(tx.cp.deleted) == 0) {
		return out
	}
	out = slices.DeleteFunc(slices.Clone(out), func(c checkpointRec) bool { return slices.Contains(tx.cp.deleted, c.id) })
	return append(out, tx.cp.added...)
}

// pinned reports whether a version that was current from position from until position to
// (exclusive) is the content of a path at a checkpoint.
func (tx *readTx) pinned(from, to int64) bool {
	for _, c := range tx.checkpointList() {
		if c.position >= from && c.position < to {
			return true
		}
	}
	return false
}

// FeedHead implements driver.FeedReader.
func (tx *readTx) FeedHead(ctx context.Context) (int64, int64, error) {
	return tx.p.feed.head, tx.p.feed.pruned, ctx.Err()
}

// Events implements driver.FeedReader.
func (tx *readTx) Events(ctx context.Context, after int64, dir string, limit int) ([]driver.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []driver.Event
	for _, e := range tx.eventsAfter(after) {
		if len(out) >= limit {
			break
		}
		if driver.AtOrBelow(e.Path, dir) {
			out = append(out, e.Event)
		}
	}
	return out, nil
}

// eventsAfter returns the committed events after position after.
func (tx *readTx) eventsAfter(after int64) []feedEvent {
	evs := tx.p.feed.events
	i := sort.Search(len(evs), func(i int) bool { return evs[i].Position > after })
	return evs[i:]
}

// ChangedSince implements driver.FeedReader.
func (tx *readTx) ChangedSince(ctx context.Context, position int64, dir string, limit int) ([]driver.PathChange, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	first := map[string]feedEvent{}
	for _, e := range tx.eventsAfter(position) {
		if _, seen := first[e.Path]; !seen && driver.AtOrBelow(e.Path, dir) {
			first[e.Path] = e
		}
	}
	paths := make([]string, 0, len(first))
	for path := range first {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	if limit > 0 && len(paths) > limit {
		paths = paths[:limit]
	}
	out := make([]driver.PathChange, len(paths))
	for i, path := range paths {
		e := first[path]
		out[i].Path = path
		if e.Kind != driver.ChangeCreated {
			out[i].Before = driver.FileState{Exists: true, Version: e.prevVersion}
			if content, ok := tx.versionContent(path, e.prevVersion); ok {
				out[i].Before.SHA256, out[i].Before.SizeBytes = fileio.SHA256Hex(content), int64(len(content))
			}
		}
		if rec := tx.lookup(path); rec != nil {
			out[i].After = driver.FileState{Exists: true, Version: rec.version, SHA256: fileio.SHA256Hex(rec.content), SizeBytes: rec.info.SizeBytes}
		}
	}
	return out, nil
}

// versionContent is the content of a version of path, active or kept, whatever its retention.
func (tx *readTx) versionContent(path string, version int64) ([]byte, bool) {
	if rec := tx.lookup(path); rec != nil && rec.version == version {
		return rec.content, true
	}
	for _, v := range tx.p.history[path] {
		if v.rec.version == version {
			return v.rec.content, true
		}
	}
	if tx.kept != nil {
		for _, k := range *tx.kept {
			if k.path == path && k.v.rec.version == version {
				return k.v.rec.content, true
			}
		}
	}
	return nil, false
}

// PinnedContents implements driver.FeedReader.
func (tx *readTx) PinnedContents(ctx context.Context, refs []driver.VersionRef) ([][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]byte, len(refs))
	for i, r := range refs {
		if content, ok := tx.versionContent(r.Path, r.Version); ok {
			out[i] = append([]byte{}, content...)
		}
	}
	return out, nil
}

// Checkpoints implements driver.FeedReader.
func (tx *readTx) Checkpoints(ctx context.Context, after int64, limit int) ([]driver.Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []driver.Checkpoint
	for _, c := range tx.checkpointList() {
		if c.id > after && (limit <= 0 || len(out) < limit) {
			out = append(out, c.public())
		}
	}
	return out, nil
}

// Checkpoint implements driver.FeedReader.
func (tx *readTx) Checkpoint(ctx context.Context, id int64) (driver.Checkpoint, bool, error) {
	if err := ctx.Err(); err != nil {
		return driver.Checkpoint{}, false, err
	}
	for _, c := range tx.checkpointList() {
		if c.id == id {
			return c.public(), true, nil
		}
	}
	return driver.Checkpoint{}, false, nil
}

// PinnedBytes implements driver.FeedReader.
func (tx *readTx) PinnedBytes(ctx context.Context) (int, int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	n, bytes := 0, int64(0)
	count := func(v *versionRec) {
		if tx.pinned(v.from, v.to) {
			n, bytes = n+1, bytes+v.rec.info.SizeBytes
		}
	}
	for _, vs := range tx.p.history { // pinned versions outlive DropVersions
		for _, v := range vs {
			count(v)
		}
	}
	if tx.kept != nil {
		for _, k := range *tx.kept {
			count(&k.v)
		}
	}
	return n, bytes, nil
}

// CreateCheckpoint implements driver.CheckpointWriter.
func (tx *writeTx) CreateCheckpoint(ctx context.Context, label string) (driver.Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return driver.Checkpoint{}, err
	}
	id := tx.p.feed.lastID + int64(len(tx.cp.added)) + 1
	c := checkpointRec{id: id, label: label, position: tx.p.feed.head + int64(len(tx.events)), createdAt: tx.now().UTC()}
	tx.cp.added = append(tx.cp.added, c)
	return c.public(), nil
}

// DeleteCheckpoint implements driver.CheckpointWriter.
func (tx *writeTx) DeleteCheckpoint(ctx context.Context, id int64) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if _, ok, _ := tx.Checkpoint(ctx, id); !ok {
		return false, nil
	}
	if i := slices.IndexFunc(tx.cp.added, func(c checkpointRec) bool { return c.id == id }); i >= 0 {
		tx.cp.added = slices.Delete(tx.cp.added, i, i+1)
	} else {
		tx.cp.deleted = append(tx.cp.deleted, id)
	}
	return true, nil
}

// WaitForEvents implements driver.FeedWaiter.
func (s *Store) WaitForEvents(ctx context.Context, scope driver.Scope, after int64, maxWait time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// Every commit that changes files wakes the outbox's waiters after its events are in; take
	// the signal before looking, so that no commit falls in between.
	s.outbox.mu.Lock()
	wake := s.outbox.wake
	s.outbox.mu.Unlock()
	if p := s.project(scope, false); p != nil {
		p.mu.RLock()
		head := p.feed.head
		p.mu.RUnlock()
		if head > after {
			return nil
		}
	}
	return driver.WaitForSignal(ctx, wake, maxWait)
}
