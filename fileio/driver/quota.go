package driver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// EventOverheadBytes is what one change-feed event counts toward its project's byte quota
// (Usage.Bytes) besides its path: about what a store keeps per event (its position, kind,
// versions, SHA-256 and times, and their index entries).
const EventOverheadBytes = 128

// EventBytes is what a change-feed event of path counts toward Usage.Bytes while the store
// keeps it (see FeedRetention).
func EventBytes(path string) int64 { return int64(len(path)) + EventOverheadBytes }

// Quota bounds what one project and its tenant hold (UpdateOptions.Quota). A zero field is no
// bound.
type Quota struct {
	// ProjectBytes bounds Usage.Bytes: the project's files, the versions its history keeps
	// (pinned ones included) and its change-feed events.
	ProjectBytes int64
	// ProjectFiles bounds the project's active files, empty ones included.
	ProjectFiles int64
	// TenantFiles bounds the active files of all the tenant's projects together.
	TenantFiles int64
	// TenantProjects bounds the tenant's projects that hold a file or a kept version.
	TenantProjects int64
}

// QuotaKind names the bound of a Quota that a transaction would pass.
type QuotaKind string

// The bounds of a Quota.
const (
	QuotaProjectBytes   QuotaKind = "project_bytes"
	QuotaProjectFiles   QuotaKind = "project_files"
	QuotaTenantFiles    QuotaKind = "tenant_files"
	QuotaTenantProjects QuotaKind = "tenant_projects"
)

// QuotaError is the error of an Update (or UpdateIfAllowed) whose transaction would leave a
// bound of UpdateOptions.Quota passed; nothing the transaction did is kept. fileio.Service
// turns it into QUOTA_EXCEEDED with what fills the project.
type QuotaError struct {
	Kind  QuotaKind
	Limit int64 // the bound
	Value int64 // what the project (for the tenant bounds, the tenant) would hold
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("quota %s exceeded: %d over the limit of %d", e.Kind, e.Value, e.Limit)
}

// ParseQuotaError reads the text "KIND LIMIT VALUE" (a QuotaError's fields separated by
// spaces, as a store that checks quotas in its database reports them) and returns the
// QuotaError, or nil when text is not of that form.
func ParseQuotaError(text string) *QuotaError {
	f := strings.Fields(text)
	if len(f) != 3 {
		return nil
	}
	limit, err1 := strconv.ParseInt(f[1], 10, 64)
	value, err2 := strconv.ParseInt(f[2], 10, 64)
	switch k := QuotaKind(f[0]); {
	case err1 != nil || err2 != nil:
		return nil
	case k == QuotaProjectBytes, k == QuotaProjectFiles, k == QuotaTenantFiles, k == QuotaTenantProjects:
		return &QuotaError{Kind: k, Limit: limit, Value: value}
	}
	return nil
}

// Usage is what a project holds, as Quota counts it, at one point of a transaction.
type Usage struct {
	Files int64 // active files
	Bytes int64 // what the byte quota counts: ReadTx.ProjectBytes (files and Kept) and Events
	// Kept is the bytes of the versions the history keeps; a project with files or kept
	// versions counts toward Quota.TenantProjects.
	Kept int64
	// Events is what the change-feed events the store keeps count (EventBytes each).
	Events int64
}

// UsageReader is an optional interface of a ReadTx: the project's Usage at this point of the
// transaction. fileio.Service words QUOTA_EXCEEDED with it (what the files, the kept versions
// and the events hold). fileio/memstore and fileio/pgstore implement it.
type UsageReader interface {
	Usage(ctx context.Context) (Usage, error)
}

// Counted reports whether the project counts toward Quota.TenantProjects: it holds a file or
// a kept version.
func (u Usage) Counted() bool { return u.Files > 0 || u.Kept > 0 }

// TenantUsage is what the tenant's other projects hold (every project but the one checked).
type TenantUsage struct {
	Files    int64
	Projects int64 // those that count (Usage.Counted)
}

// Check returns the QuotaError of a transaction that took a project from before to after, or
// nil. Stores call it (or do the same in their database) before they commit a transaction
// that created or replaced a file; others is asked for only when the tenant's bounds apply
// (the project gained files or started to count). The rules:
//
//   - ProjectBytes and ProjectFiles: the transaction leaves the project above the bound and
//     above where it started (so a transaction over a quota lowered since may still shrink it);
//   - TenantFiles: the project gained files and the tenant's files are above the bound;
//   - TenantProjects: the project started to count and the tenant's projects are above the
//     bound.
func (q Quota) Check(before, after Usage, others func() (TenantUsage, error)) error {
	switch {
	case q.ProjectBytes > 0 && after.Bytes > q.ProjectBytes && after.Bytes > before.Bytes:
		return &QuotaError{Kind: QuotaProjectBytes, Limit: q.ProjectBytes, Value: after.Bytes}
	case q.ProjectFiles > 0 && after.Files > q.ProjectFiles && after.Files > before.Files:
		return &QuotaError{Kind: QuotaProjectFiles, Limit: q.ProjectFiles, Value: after.Files}
	}
	gained := q.TenantFiles > 0 && after.Files > before.Files
	started := q.TenantProjects > 0 && after.Counted() && !before.Counted()
	if !gained && !started {
		return nil
	}
	t, err := others()
	if err != nil {
		return err
	}
	if gained && t.Files+after.Files > q.TenantFiles {
		return &QuotaError{Kind: QuotaTenantFiles, Limit: q.TenantFiles, Value: t.Files + after.Files}
	}
	if started && t.Projects+1 > q.TenantProjects {
		return &QuotaError{Kind: QuotaTenantProjects, Limit: q.TenantProjects, Value: t.Projects + 1}
	}
	return nil
}
