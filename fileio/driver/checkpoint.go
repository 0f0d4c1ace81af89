package driver

import (
	"context"
	"time"
)

// ChangeKind is what one change did to a file.
type ChangeKind string

// The kinds of change the change feed reports.
const (
	ChangeCreated  ChangeKind = "created"  // a file appeared at a path that had none
	ChangeModified ChangeKind = "modified" // a file's content was replaced (possibly by the same bytes)
	ChangeDeleted  ChangeKind = "deleted"  // a file went away (a rename is a delete and a create)
)

// Event is one committed change of one file, as the change feed (Service.Events) reports it.
type Event struct {
	// Position orders the changes of one project: 1, 2, 3, … in commit order, without gaps.
	Position int64      `json:"position"`
	Path     string     `json:"path"`
	Kind     ChangeKind `json:"kind"`
	// Version is the version the change made (see VersionInfo); for a delete, the version
	// it removed.
	Version int64 `json:"version"`
	// SHA256 is the hex SHA-256 of the new content; "" for a delete.
	SHA256    string    `json:"sha256,omitempty"`
	SizeBytes int64     `json:"size_bytes"` // of the new content; 0 for a delete
	At        time.Time `json:"at"`         // when the change was made
}

// Checkpoint is a named point of a project's change feed that Service.Rewind returns the
// project to and Service.Changes compares with.
type Checkpoint struct {
	ID        string    `json:"checkpoint"`
	Label     string    `json:"label,omitempty"`
	Position  int64     `json:"position"` // the feed position it was taken at: file_events' after
	CreatedAt time.Time `json:"created_at"`
}

// FileState is what was (or is) at one path: nothing, or one version of a file.
type FileState struct {
	Exists    bool
	Version   int64
	SHA256    string // hex SHA-256 of the content; "" when Exists is false or the content is no longer kept
	SizeBytes int64
}

// VersionRef names one version of a file.
type VersionRef struct {
	Path    string
	Version int64
}

// PathChange is a path that changed after a feed position: its state at that position and now.
type PathChange struct {
	Path   string
	Before FileState // at the position
	After  FileState // now, in the transaction
}

// FeedReader is an optional interface of a ReadTx: the project's change feed and checkpoints.
// Every Put and every Delete of an existing file appends one Event, in the order the
// transaction made them, at commit; positions are assigned in commit order and without gaps,
// so a reader that has seen position n has seen every change up to n. fileio/memstore and
// fileio/pgstore implement it (and CheckpointWriter); Service.Events, Changes, Rewind and the
// checkpoint methods need it.
//
// Events are kept at least FeedRetention(UpdateOptions) after they were made, and every event
// after the position of a checkpoint is kept while the checkpoint exists. A kept version of a
// file (see Historian) that was the file's content at a checkpoint's position is pinned: the
// history's count and time limits and HistoryPurger leave it alone until the checkpoint is
// deleted.
type FeedReader interface {
	// FeedHead returns the newest position (0 before the first change) and the position up to
	// which events may have been dropped: every event after it is kept.
	FeedHead(ctx context.Context) (head, pruned int64, err error)
	// Events returns the events after position after, at or below dir ("": all), in position
	// order, at most limit of them.
	Events(ctx context.Context, after int64, dir string, limit int) ([]Event, error)
	// ChangedSince returns, for each path at or below dir with an event after position, its
	// state at that position and now, in path order (bytewise), at most limit of them.
	// Before.SHA256 is "" when the content is no longer kept.
	ChangedSince(ctx context.Context, position int64, dir string, limit int) ([]PathChange, error)
	// PinnedContents returns the content of each version in refs, in the order of refs,
	// whether its retention has run out or not: nil where the store no longer has it (an
	// empty file's content is empty, not nil). Service.Rewind asks for a batch of files at a
	// time, so that a store answers them in one step.
	PinnedContents(ctx context.Context, refs []VersionRef) ([][]byte, error)
	// Checkpoints returns the project's checkpoints with an id above after, oldest first, at
	// most limit of them.
	Checkpoints(ctx context.Context, after int64, limit int) ([]Checkpoint, error)
	// Checkpoint returns one checkpoint by its number, and false when there is none.
	Checkpoint(ctx context.Context, id int64) (Checkpoint, bool, error)
	// PinnedBytes returns how many kept versions checkpoints pin and their bytes.
	PinnedBytes(ctx context.Context) (versions int, bytes int64, err error)
}

// CheckpointWriter is an optional interface of a WriteTx: it adds and removes checkpoints.
type CheckpointWriter interface {
	// CreateCheckpoint records a checkpoint at the feed's head, numbered 1, 2, … per project
	// (numbers are not reused).
	CreateCheckpoint(ctx context.Context, label string) (Checkpoint, error)
	// DeleteCheckpoint removes checkpoint id, releasing what it pins; false when there is none.
	DeleteCheckpoint(ctx context.Context, id int64) (bool, error)
}

// FeedWaiter is an optional interface of a Store: it wakes a follower of the change feed when
// a change is committed, by any process that shares the store. Service.Events long-polls with
// it (without it, it polls).
type FeedWaiter interface {
	// WaitForEvents returns nil when the feed of scope has a position above after, or when
	// maxWait has passed; ctx.Err() when ctx ends first. It may return early spuriously.
	WaitForEvents(ctx context.Context, scope Scope, after int64, maxWait time.Duration) error
}

// MinFeedRetention is the least time a store keeps an event of the change feed.
const MinFeedRetention = 24 * time.Hour

// FeedRetention is how long a store keeps the events of an Update with these options: as long
// as the history keeps versions (HistoryRetention, when HistoryVersions > 0), at least
// MinFeedRetention.
func FeedRetention(o UpdateOptions) time.Duration {
	if o.HistoryVersions > 0 && o.HistoryRetention > MinFeedRetention {
		return o.HistoryRetention
	}
	return MinFeedRetention
}

// AtOrBelow reports whether path is dir or lies below it; every path is at or below "".
func AtOrBelow(path, dir string) bool {
	return dir == "" || path == dir || (len(path) > len(dir) && path[len(dir)] == '/' && path[:len(dir)] == dir)
}
