package fileio

// StatRequest names the file or directory Service.Stat describes.
type StatRequest struct {
	Project, Path string
}

// DeleteRequest is the argument of Service.Delete.
type DeleteRequest struct {
	Project, Path string
	// Recursive deletes a directory and everything below it; without it a directory is
	// deleted only when empty.
	Recursive bool
	// ExpectedSHA256, when set, makes the delete fail with CONFLICT unless Path is a file
	// whose content has this SHA-256 (as Write, Edit and Versions report it): the file the
	// caller read is the file it deletes.
	ExpectedSHA256 string
}

// RenameRequest is the argument of Service.Rename.
type RenameRequest struct {
	Project, From, To string
	// Overwrite replaces files that exist at destination paths (their content kept in their
	// history); without it such a file makes the rename ALREADY_EXISTS.
	Overwrite bool
	// Exclusive moves From only when nothing exists at To, neither a file nor a directory,
	// and is ALREADY_EXISTS otherwise: no overwrite and no merge into an existing directory.
	// The check and the move are one step under the project lock (the memory tool's rename).
	Exclusive bool
	// ExpectedSHA256, when set, makes the rename fail with CONFLICT unless From is a file
	// whose content has this SHA-256.
	ExpectedSHA256 string
}

// VersionsRequest names the file whose versions Service.Versions lists.
type VersionsRequest struct {
	Project, Path string
}

// RestoreRequest is the argument of Service.Restore: the version of the file at Path to make
// current again.
type RestoreRequest struct {
	Project, Path string
	Version       int64
	// ExpectedSHA256, when set, makes the restore fail with CONFLICT unless the current file
	// at Path has this SHA-256.
	ExpectedSHA256 string
}

// PurgeHistoryRequest names the file or directory (Path "": the whole project) whose kept
// versions Service.PurgeHistory drops.
type PurgeHistoryRequest struct {
	Project, Path string
}

// CheckpointRequest is the argument of Service.Checkpoint: the project whose state to record,
// under an optional Label.
type CheckpointRequest struct {
	Project, Label string
}

// CheckpointsRequest is the argument of Service.Checkpoints; Cursor is a previous answer's
// NextCursor ("" to start).
type CheckpointsRequest struct {
	Project, Cursor string
}

// DeleteCheckpointRequest names the checkpoint of a project that Service.DeleteCheckpoint
// removes.
type DeleteCheckpointRequest struct {
	Project, Checkpoint string
}
