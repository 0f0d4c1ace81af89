package fileio

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// quotaError is the QUOTA_EXCEEDED of a change that would pass a quota, found by the Service as
// it plans the change or by the store at commit (*driver.QuotaError). It travels out of the
// transaction as it is, and explainQuota words it once it knows what fills the project.
type quotaError struct {
	q   driver.QuotaError
	err *agentfiles.Error
	// planned: the Service found it as it planned the change, from ReadTx.ProjectBytes, which
	// leaves out the change-feed events; a store's QuotaError counts them.
	planned bool
}

func (e *quotaError) Error() string { return e.err.Error() }
func (e *quotaError) Unwrap() error { return e.err }

// newQuotaError is the QUOTA_EXCEEDED of q, about path ("" for the project). Its message
// already says what to do; explainQuota adds what fills the project.
func newQuotaError(q *driver.QuotaError, path string) error {
	var msg string
	switch q.Kind {
	case driver.QuotaProjectBytes:
		msg = fmt.Sprintf("the project would hold %d bytes (files, their kept versions and change-feed events), over its quota of %d (max_project_bytes). "+
			"Delete files you no longer need, or drop kept versions with file_purge_history, then retry", q.Value, q.Limit)
	case driver.QuotaProjectFiles:
		msg = fmt.Sprintf("the project would hold %d files, over its quota of %d files (max_project_files; empty files count too). "+
			"Delete files you no longer need, or put these in another project, then retry", q.Value, q.Limit)
	case driver.QuotaTenantFiles:
		msg = fmt.Sprintf("the projects of this API key would hold %d files together, over their quota of %d (max_tenant_files; empty files count too). "+
			"Delete files or whole projects you no longer need, then retry", q.Value, q.Limit)
	case driver.QuotaTenantProjects:
		msg = fmt.Sprintf("this would be project number %d of this API key, over its quota of %d projects (max_tenant_projects). "+
			"Write into an existing project, or empty one you no longer need (file_delete of its root, then file_purge_history), then retry", q.Value, q.Limit)
	default:
		msg = fmt.Sprintf("a quota (%s) would be exceeded: %d over the limit of %d; free space, then retry", q.Kind, q.Value, q.Limit)
	}
	return &quotaError{q: *q, err: agentfiles.NewError(CodeQuotaExceeded, msg, path)}
}

// newProjectQuotaError is the QUOTA_EXCEEDED of a change that would take the project to total
// bytes, over its quota.
func newProjectQuotaError(total, quota int64, path string) error {
	err := newQuotaError(&driver.QuotaError{Kind: driver.QuotaProjectBytes, Limit: quota, Value: total}, path)
	err.(*quotaError).planned = true
	return err
}

// explainQuota turns the quotaError of the byte quota into a QUOTA_EXCEEDED that says how much
// the files, the kept versions and the change-feed events hold, and what frees each; the
// other quotas' errors lose their wrapper, and other errors pass unchanged.
func (s *Service) explainQuota(ctx context.Context, scope driver.Scope, err error) error {
	var qe *quotaError
	if !errors.As(err, &qe) {
		return err
	}
	if qe.q.Kind != driver.QuotaProjectBytes {
		return qe.err
	}
	var pinned int64
	u, uerr := inView(ctx, s, scope, func(tx driver.ReadTx) (driver.Usage, error) {
		if f, ok := tx.(driver.FeedReader); ok {
			var err error
			if _, pinned, err = f.PinnedBytes(ctx); err != nil {
				return driver.Usage{}, err
			}
		}
		if ur, ok := tx.(driver.UsageReader); ok {
			return ur.Usage(ctx)
		}
		var u driver.Usage
		var err error
		if u.Bytes, err = tx.ProjectBytes(ctx); err == nil {
			if h, ok := tx.(driver.HistorySizer); ok {
				u.Kept, err = h.KeptBytes(ctx)
			}
		}
		return u, err
	})
	if uerr != nil {
		return qe.err
	}
	total := qe.q.Value
	if qe.planned {
		total += u.Events
	}
	files := u.Bytes - u.Kept - u.Events
	hint := "Delete files you no longer need"
	if u.Kept > 0 {
		hint = "Drop kept versions with file_purge_history (path \"\" for the whole project), or delete files you no longer need"
	}
	if pinned > 0 {
		hint = fmt.Sprintf("%d bytes of the kept versions are pinned by checkpoints and stay until you delete those checkpoints (file_checkpoints, file_checkpoint_delete). %s",
			pinned, hint)
	}
	return agentfiles.NewError(CodeQuotaExceeded, fmt.Sprintf(
		"the project would hold %d bytes, over its quota of %d (max_project_bytes): it holds %d in files, %d in kept versions of earlier content (see file_versions) "+
			"and %d in change-feed events (%d bytes each and its path, kept %s after the change and while a checkpoint older than it exists), "+
			"and this change adds %d (its content, the versions it keeps, its events). %s, then retry",
		total, qe.q.Limit, files, u.Kept, u.Events, driver.EventOverheadBytes, durationText(driver.FeedRetention(s.update)),
		total-u.Bytes, hint), qe.err.Arg)
}

// durationText says d in whole days, or hours below a day.
func durationText(d time.Duration) string {
	switch days := int64(d / (24 * time.Hour)); {
	case days == 1:
		return "a day"
	case days > 1:
		return fmt.Sprintf("%d days", days)
	}
	return d.Round(time.Minute).String()
}
