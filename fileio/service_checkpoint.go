package fileio

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// Limits of the checkpoint calls that are not configuration (the most checkpoints a project
// keeps is Config.MaxCheckpoints).
const (
	// MaxCheckpointLabelBytes caps a checkpoint's label.
	MaxCheckpointLabelBytes = 200
	// CheckpointPageSize is how many checkpoints one Checkpoints call lists.
	CheckpointPageSize = 100
)

// CheckpointList is the answer of Service.Checkpoints.
type CheckpointList struct {
	Checkpoints []driver.Checkpoint `json:"checkpoints"`
	// Truncated is true when the list has more: pass NextCursor as the next call's cursor.
	Truncated  bool   `json:"truncated"`
	NextCursor string `json:"next_cursor,omitempty"`
}

// feedStore returns the change feed of tx, or INVALID_ARGUMENT when the store has none.
func feedStore(tx driver.ReadTx) (driver.FeedReader, error) {
	f, ok := tx.(driver.FeedReader)
	if !ok {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "this file store keeps no change feed or checkpoints; use memstore or pgstore", "")
	}
	return f, nil
}

// CheckpointResult is the answer of Service.Checkpoint: the checkpoint, and what it pins.
type CheckpointResult struct {
	driver.Checkpoint
	// PinsFiles and PinsBytes are what the checkpoint keeps: the content of the project's
	// files now. While it exists, a version of these that a later change replaces (or a
	// delete removes) stays, past the history's count and time limits and file_purge_history,
	// and counts toward max_project_bytes as a kept version.
	PinsFiles int64 `json:"pins_files"`
	PinsBytes int64 `json:"pins_bytes"`
	// PinnedVersions and PinnedBytes are the kept versions all the project's checkpoints
	// already pin (as PurgeHistoryResult reports them).
	PinnedVersions int   `json:"pinned_versions"`
	PinnedBytes    int64 `json:"pinned_bytes"`
	// ProjectBytes is what the project holds now, as max_project_bytes (QuotaBytes) counts it:
	// files, kept versions and change-feed events.
	ProjectBytes int64 `json:"project_bytes"`
	QuotaBytes   int64 `json:"quota_bytes"`
	// Note says the above in a sentence, and what frees it.
	Note string `json:"note"`
}

// Checkpoint records the state of project now, under an optional label, so that Changes can
// list what changed since and Rewind can return to it. It pins the versions it needs (see
// FeedReader) until DeleteCheckpoint, and says so: CheckpointResult tells what it pins and how
// full the project is. Errors: INVALID_ARGUMENT when the history is off (history_versions 0:
// there would be nothing to return to) or for a bad label, QUOTA_EXCEEDED when the project
// already has Config.MaxCheckpoints.
func (s *Service) Checkpoint(ctx context.Context, req CheckpointRequest) (CheckpointResult, error) {
	project, label := req.Project, req.Label
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	ac, scope, err := s.begin(ctx, project, "")
	if err == nil {
		err = s.checkCheckpointArgs(label)
	}
	var res CheckpointResult
	if err == nil {
		res, err = inUpdate(ctx, s, scope, func(tx driver.WriteTx) (CheckpointResult, error) {
			f, err := feedStore(tx)
			if err != nil {
				return CheckpointResult{}, err
			}
			w, ok := tx.(driver.CheckpointWriter)
			if !ok {
				return CheckpointResult{}, agentfiles.NewError(agentfiles.CodeInvalidArgument, "this file store cannot record checkpoints", "")
			}
			limit := s.cfg.MaxCheckpoints
			existing, err := f.Checkpoints(ctx, 0, limit)
			if err != nil {
				return CheckpointResult{}, err
			}
			if len(existing) >= limit {
				return CheckpointResult{}, agentfiles.NewError(CodeQuotaExceeded, fmt.Sprintf(
					"the project has %d checkpoints, the most it keeps (max_checkpoints); delete the ones you no longer need with file_checkpoint_delete, then retry", len(existing)), "")
			}
			cp, err := w.CreateCheckpoint(ctx, label)
			if err != nil {
				return CheckpointResult{}, err
			}
			return s.checkpointPins(ctx, tx, f, cp)
		})
	}
	s.logOp(ctx, "checkpoint", ac, project, "", err, slog.String("checkpoint", res.ID), slog.Int64("position", res.Position))
	return res, err
}

// checkpointPins is the answer of a Checkpoint that made cp: what it pins and how full the
// project is.
func (s *Service) checkpointPins(ctx context.Context, tx driver.ReadTx, f driver.FeedReader, cp driver.Checkpoint) (CheckpointResult, error) {
	res := CheckpointResult{Checkpoint: cp, QuotaBytes: s.cfg.MaxProjectBytes}
	var err error
	if res.PinnedVersions, res.PinnedBytes, err = f.PinnedBytes(ctx); err != nil {
		return CheckpointResult{}, err
	}
	if ur, ok := tx.(driver.UsageReader); ok {
		u, err := ur.Usage(ctx)
		if err != nil {
			return CheckpointResult{}, err
		}
		res.PinsFiles, res.PinsBytes, res.ProjectBytes = u.Files, u.Bytes-u.Kept-u.Events, u.Bytes
	} else {
		files, err := tx.List(ctx, "", 0)
		if err != nil {
			return CheckpointResult{}, err
		}
		for _, fi := range files {
			res.PinsFiles++
			res.PinsBytes += fi.SizeBytes
		}
		if res.ProjectBytes, err = tx.ProjectBytes(ctx); err != nil {
			return CheckpointResult{}, err
		}
	}
	res.Note = fmt.Sprintf("this checkpoint keeps the content the project's files have now (%d files, %d bytes): a version of them that a later change "+
		"replaces or deletes stays while the checkpoint exists, and counts toward the project's quota. The project holds %d of its %d bytes; "+
		"checkpoints already keep replaced versions (%d, %d bytes). file_checkpoint_delete frees what only this checkpoint keeps",
		res.PinsFiles, res.PinsBytes, res.ProjectBytes, res.QuotaBytes, res.PinnedVersions, res.PinnedBytes)
	return res, nil
}

func (s *Service) checkCheckpointArgs(label string) error {
	if s.cfg.HistoryVersions <= 0 {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument,
			"checkpoints need the file history, which is off (history_versions 0); ask the operator to turn it on", "")
	}
	switch {
	case len(label) > MaxCheckpointLabelBytes:
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf("label is %d bytes; the most is %d", len(label), MaxCheckpointLabelBytes), "label")
	case !utf8.ValidString(label) || strings.IndexFunc(label, unicode.IsControl) >= 0:
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, "label must be UTF-8 text without control characters", "label")
	}
	return nil
}

// Checkpoints lists the checkpoints of project, oldest first, CheckpointPageSize at a time;
// cursor is a previous answer's NextCursor ("" to start).
func (s *Service) Checkpoints(ctx context.Context, req CheckpointsRequest) (CheckpointList, error) {
	project, cursor := req.Project, req.Cursor
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	ac, scope, err := s.begin(ctx, project, "")
	var after int64
	if err == nil {
		after, err = decodeIDCursor(cursor)
	}
	var res CheckpointList
	if err == nil {
		res, err = inView(ctx, s, scope, func(tx driver.ReadTx) (CheckpointList, error) {
			f, err := feedStore(tx)
			if err != nil {
				return CheckpointList{}, err
			}
			cs, err := f.Checkpoints(ctx, after, CheckpointPageSize+1)
			if err != nil {
				return CheckpointList{}, err
			}
			list := CheckpointList{Checkpoints: cs}
			if len(cs) > CheckpointPageSize {
				list.Checkpoints = cs[:CheckpointPageSize]
				list.NextCursor = encodeIDCursor(list.Checkpoints[CheckpointPageSize-1].ID)
				list.Truncated = true
			}
			if list.Checkpoints == nil {
				list.Checkpoints = []driver.Checkpoint{}
			}
			return list, nil
		})
	}
	s.logOp(ctx, "checkpoints", ac, project, "", err, slog.Int("checkpoints", len(res.Checkpoints)))
	return res, err
}

// DeleteCheckpoint removes a checkpoint of project; the versions only it pinned go when the
// history's retention lets them. NOT_FOUND when there is no such checkpoint.
func (s *Service) DeleteCheckpoint(ctx context.Context, req DeleteCheckpointRequest) error {
	project, checkpoint := req.Project, req.Checkpoint
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	ac, scope, err := s.begin(ctx, project, "")
	var id int64
	if err == nil {
		id, err = parseCheckpointID(checkpoint)
	}
	if err == nil {
		_, err = inUpdate(ctx, s, scope, func(tx driver.WriteTx) (struct{}, error) {
			w, ok := tx.(driver.CheckpointWriter)
			if !ok {
				return struct{}{}, agentfiles.NewError(agentfiles.CodeInvalidArgument, "this file store keeps no checkpoints", "")
			}
			found, err := w.DeleteCheckpoint(ctx, id)
			if err == nil && !found {
				err = noCheckpointError(checkpoint)
			}
			return struct{}{}, err
		})
	}
	s.logOp(ctx, "checkpoint_delete", ac, project, "", err, slog.String("checkpoint", checkpoint))
	return err
}

// parseCheckpointID reads a checkpoint id as Checkpoint.ID spells it.
func parseCheckpointID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 || strconv.FormatInt(id, 10) != s {
		return 0, agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"checkpoint %q is not a checkpoint id; pass the checkpoint value file_checkpoint or file_checkpoints returned, such as \"3\"", s), "checkpoint")
	}
	return id, nil
}

func noCheckpointError(checkpoint string) error {
	return agentfiles.NewError(agentfiles.CodeNotFound, fmt.Sprintf(
		"the project has no checkpoint %s (never made, or deleted); file_checkpoints lists them", checkpoint), "checkpoint")
}

// findCheckpoint returns the checkpoint named by the argument checkpoint.
func findCheckpoint(ctx context.Context, f driver.FeedReader, checkpoint string) (driver.Checkpoint, error) {
	id, err := parseCheckpointID(checkpoint)
	if err != nil {
		return driver.Checkpoint{}, err
	}
	c, ok, err := f.Checkpoint(ctx, id)
	if err == nil && !ok {
		err = noCheckpointError(checkpoint)
	}
	return c, err
}

// idCursorPrefix marks a cursor over checkpoint ids.
const idCursorPrefix = "k1|"

func encodeIDCursor(id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(idCursorPrefix + id))
}

func decodeIDCursor(cursor string) (int64, error) {
	if cursor == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	id, perr := strconv.ParseInt(strings.TrimPrefix(string(raw), idCursorPrefix), 10, 64)
	if err != nil || perr != nil || !strings.HasPrefix(string(raw), idCursorPrefix) || id < 1 {
		return 0, agentfiles.NewError(agentfiles.CodeInvalidArgument,
			"cursor is not one file_checkpoints returned; pass next_cursor exactly as returned, or leave it out to start over", "cursor")
	}
	return id, nil
}
