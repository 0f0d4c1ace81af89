package driver

import (
	"context"
	"time"
)

// VersionInfo describes one version of a file: the active content or a kept previous one.
type VersionInfo struct {
	Version   int64     `json:"version"` // per path: 1, 2, …; a file created again after a delete continues the numbering
	SizeBytes int64     `json:"size_bytes"`
	SHA256    string    `json:"sha256"`     // of the content, as file_edit's expected_sha256 takes it
	WrittenAt time.Time `json:"written_at"` // when this content was written (the file's UpdatedAt then)
	// ReplacedAt is when a newer version or a delete replaced it; zero for the current version.
	ReplacedAt time.Time `json:"replaced_at,omitzero"`
	Current    bool      `json:"current"` // the active file's content
	Deleted    bool      `json:"deleted"` // a delete (or a rename away) replaced it
}

// Historian is the file history part of a ReadTx. A store keeps versions when
// UpdateOptions.HistoryVersions > 0: each Put that replaces a file and each Delete keeps the
// replaced content as a version, for as long as the options of that Update say.
type Historian interface {
	// Versions returns the versions of path newest first: the active file's (Current) when
	// there is one, then the kept previous ones whose retention has not run out.
	Versions(ctx context.Context, path string) ([]VersionInfo, error)
	// GetVersion returns the content of one version of path (the active one included), or
	// an *agentfiles.Error with code NOT_FOUND.
	GetVersion(ctx context.Context, path string, version int64) (File, error)
}

// HistoryPurger is an optional interface of a WriteTx that drops kept versions before their
// retention runs out, so a tenant can win back the quota they hold (Service.PurgeHistory).
// fileio/memstore and fileio/pgstore implement it.
type HistoryPurger interface {
	// DropVersions drops every kept version of path and of the paths below it ("" : of the
	// whole project), active files' and deleted files' alike, and returns how many it dropped
	// and their bytes; ProjectBytes shrinks by as much. Active files are not touched.
	DropVersions(ctx context.Context, path string) (versions int, bytes int64, err error)
}

// HistorySizer is an optional interface of a ReadTx that tells how many of ProjectBytes the
// kept versions hold, so that QUOTA_EXCEEDED can say what fills the project.
type HistorySizer interface {
	KeptBytes(ctx context.Context) (int64, error)
}
