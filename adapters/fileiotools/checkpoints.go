package fileiotools

import (
	"context"
	"fmt"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/fileio"
)

type fileCheckpointIn struct {
	projectArg
	Label string `json:"label,omitempty" jsonschema:"a note for people, e.g. 'before turn 12'; at most 200 bytes"`
}

type fileCheckpointsIn struct {
	projectArg
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page, to continue"`
}

type fileCheckpointDeleteIn struct {
	projectArg
	Checkpoint string `json:"checkpoint" jsonschema:"the checkpoint to delete, as file_checkpoint returned it, e.g. '3'"`
}

type fileCheckpointDeleteOut struct {
	Checkpoint string `json:"checkpoint"`
	Deleted    bool   `json:"deleted"`
}

type fileEventsIn struct {
	projectArg
	After  int64  `json:"after,omitempty" jsonschema:"the position to continue from: next_after of the previous answer, or a checkpoint's position; default 0 (the first change)"`
	Path   string `json:"path,omitempty" jsonschema:"only the changes of this file or of the files below this directory, e.g. '/src'; default '' (all)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most events to return; the default and the maximum are in the tool description"`
	WaitMS int64  `json:"wait_ms,omitempty" jsonschema:"when nothing is new, wait up to this many milliseconds for the next change (a long poll); default 0"`
}

type fileChangesIn struct {
	projectArg
	Since  string `json:"since" jsonschema:"the checkpoint to compare with, e.g. '3'"`
	Path   string `json:"path,omitempty" jsonschema:"only the files at or below this path, e.g. '/src'; default '' (all)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page, with the same since and path"`
}

type fileRewindIn struct {
	projectArg
	Checkpoint string `json:"checkpoint" jsonschema:"the checkpoint to return to, e.g. '3'"`
	Path       string `json:"path,omitempty" jsonschema:"only the files at or below this path go back, e.g. '/src'; default '' (the whole project)"`
	DryRun     bool   `json:"dry_run,omitempty" jsonschema:"true: list what would change and change nothing"`
}

// checkpointTools are the checkpoint, change-feed and rewind tools over svc.
func checkpointTools(svc *fileio.Service, cfg fileio.Config, ro adapters.Annotations) []adapters.Tool {
	return []adapters.Tool{
		adapters.NewTool("file_checkpoint", "Checkpoint a project",
			"Records the state of every file of a project now, so that file_changes can show what changed since "+
				"and file_rewind can return to it. Take one before an agent's turn. Returns {checkpoint, position, "+
				"created_at}: pass checkpoint to file_changes and file_rewind, position to file_events as after. A "+
				"checkpoint keeps the versions it needs until file_checkpoint_delete: a file it saw that is later "+
				"changed or deleted keeps its old content, which counts toward the project's quota of "+
				sizeText(cfg.MaxProjectBytes)+" (writes past it are QUOTA_EXCEEDED until checkpoints are deleted). The "+
				"answer says what it pins: pins_files, pins_bytes, pinned_versions, pinned_bytes (what checkpoints already "+
				"keep), project_bytes, quota_bytes and a note. A project keeps at most "+fmt.Sprint(cfg.MaxCheckpoints)+
				" checkpoints (QUOTA_EXCEEDED: delete old ones). Example: {\"project\": \"demo\", \"label\": \"before turn 12\"}.",
			adapters.Annotations{},
			func(ctx context.Context, in fileCheckpointIn) (fileio.CheckpointResult, error) {
				return svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: in.Project, Label: in.Label})
			}),
		adapters.NewTool("file_checkpoints", "List checkpoints",
			"Lists the checkpoints of a project, oldest first, "+fmt.Sprint(fileio.CheckpointPageSize)+" per page, each "+
				"with checkpoint, label, position and created_at; next_cursor continues. Example: {\"project\": \"demo\"}.",
			ro,
			func(ctx context.Context, in fileCheckpointsIn) (fileio.CheckpointList, error) {
				return svc.Checkpoints(ctx, fileio.CheckpointsRequest{Project: in.Project, Cursor: in.Cursor})
			}),
		adapters.NewTool("file_checkpoint_delete", "Delete a checkpoint",
			"Deletes a checkpoint; the versions only it kept go when the history's retention lets them, giving back "+
				"their quota. Files are not changed. NOT_FOUND when there is no such checkpoint. Example: "+
				"{\"project\": \"demo\", \"checkpoint\": \"3\"}.",
			adapters.Annotations{Destructive: true, Idempotent: true},
			func(ctx context.Context, in fileCheckpointDeleteIn) (fileCheckpointDeleteOut, error) {
				if err := svc.DeleteCheckpoint(ctx, fileio.DeleteCheckpointRequest{Project: in.Project, Checkpoint: in.Checkpoint}); err != nil {
					return fileCheckpointDeleteOut{}, err
				}
				return fileCheckpointDeleteOut{Checkpoint: in.Checkpoint, Deleted: true}, nil
			}),
		adapters.NewTool("file_events", "Follow a project's changes",
			"The change feed of a project: every committed change (write, edit, rename, delete, restore, rewind) "+
				"once, in commit order, as events [{position, path, kind: created|modified|deleted, version, sha256, "+
				"size_bytes, at}] (a rename is a delete and a create). Pass after = next_after of the previous answer "+
				"(or a checkpoint's position) to get only what is new; with wait_ms, a call that finds nothing waits up "+
				"to that long (at most "+cfg.FeedMaxWait.String()+") for the next change, so a UI or a mirror follows "+
				"the project without reading it whole; at most "+fmt.Sprint(cfg.MaxFeedWaits)+" such calls of yours wait at once "+
				"(RESOURCE_BUSY beyond). "+fmt.Sprint(fileio.DefaultEventsLimit)+" events by default (limit, "+
				"at most "+fmt.Sprint(fileio.MaxEventsLimit)+"); more=true says more follow at once. INVALID_ARGUMENT when after "+
				"is beyond the newest change or older than the changes still kept (the message says where to restart). "+
				"Example: {\"project\": \"demo\", \"after\": 42, \"wait_ms\": 20000}.",
			ro,
			func(ctx context.Context, in fileEventsIn) (fileio.EventsResult, error) {
				if in.WaitMS < 0 {
					return fileio.EventsResult{}, agentfiles.NewError(agentfiles.CodeInvalidArgument, "wait_ms must be >= 0", "wait_ms")
				}
				return svc.Events(ctx, fileio.EventsRequest{Project: in.Project, After: in.After, Path: in.Path, Limit: in.Limit,
					Wait: time.Duration(min(in.WaitMS, int64(cfg.FeedMaxWait/time.Millisecond))) * time.Millisecond})
			}),
		adapters.NewTool("file_changes", "Show changes since a checkpoint",
			"The net difference between a checkpoint and now: each file that differs, once, as added, modified, "+
				"deleted or renamed (from, to: a deleted file whose content is now at a new path), by path, with its "+
				"unified diff from the checkpoint's content (cut at "+sizeText(cfg.MaxDiffBytes)+", diff_truncated). A file "+
				"changed and changed back is not listed. Pages end after 100 files or "+sizeText(cfg.MaxDiffBytes)+" of "+
				"diffs: continue with cursor=next_cursor. At most "+fmt.Sprint(cfg.MaxRewindFiles)+" differing files per "+
				"call (INVALID_ARGUMENT: name a directory with path). Example: {\"project\": \"demo\", \"since\": \"3\"}.",
			ro,
			func(ctx context.Context, in fileChangesIn) (fileio.ChangesResult, error) {
				return svc.Changes(ctx, fileio.ChangesRequest{Project: in.Project, Since: in.Since, Path: in.Path, Cursor: in.Cursor})
			}),
		adapters.NewTool("file_rewind", "Return a project to a checkpoint",
			"Returns every file of a project (or at or below path) to its state at a checkpoint, in one "+
				"transaction: files created since are deleted, deleted ones come back, modified ones get their "+
				"content back, renamed ones move back. Lists what it undid (changes, total). The rewind is itself "+
				"undoable: take a file_checkpoint first and rewind to that. dry_run=true only lists. At most "+
				fmt.Sprint(cfg.MaxRewindFiles)+" differing files per call. NOT_DIRECTORY when a parent of path is now a file; "+
				"QUOTA_EXCEEDED when the files that come back do not fit. Example: {\"project\": \"demo\", "+
				"\"checkpoint\": \"3\", \"dry_run\": true}.",
			adapters.Annotations{Destructive: true, Idempotent: true},
			func(ctx context.Context, in fileRewindIn) (fileio.RewindResult, error) {
				return svc.Rewind(ctx, fileio.RewindRequest{Project: in.Project, Checkpoint: in.Checkpoint, Path: in.Path, DryRun: in.DryRun})
			}),
	}
}
