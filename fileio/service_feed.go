package fileio

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// Limits of Events.
const (
	DefaultEventsLimit = 100
	MaxEventsLimit     = 1000
	// feedPollInterval is how often Events looks again while it waits on a store that is no
	// FeedWaiter.
	feedPollInterval = 100 * time.Millisecond
)

// EventsRequest is the input of Service.Events.
type EventsRequest struct {
	Project string
	// After is the position to continue from: a previous answer's NextAfter or a checkpoint's
	// Position; 0 for the first change.
	After int64
	// Path, when not "", keeps the changes of that file or of the files below that directory.
	Path string
	// Limit is the most events to return: 0 means DefaultEventsLimit, at most MaxEventsLimit.
	Limit int
	// Wait, when positive, makes a call that finds nothing new wait up to that long (at most
	// Config.FeedMaxWait) for the next change: a long poll.
	Wait time.Duration
}

// EventsResult is the answer of Service.Events.
type EventsResult struct {
	Events []driver.Event `json:"events"`
	// NextAfter is the After of the next call: the position up to which the feed has been
	// read (the last event's, or the feed's head when nothing more matched).
	NextAfter int64 `json:"next_after"`
	// Truncated is true when more events may follow at once (the answer was cut at Limit):
	// call again with After = NextAfter.
	Truncated bool `json:"truncated"`
}

// Events returns the committed changes of project after req.After, in commit order, each once:
// every write, edit, rename (a delete and a create), delete, restore and rewind, whichever
// server instance made it. A follower passes NextAfter to its next call, with a Wait to be
// woken by the next change instead of polling. INVALID_ARGUMENT when After lies beyond the
// feed's head or before the events the store still keeps (then re-read the project and follow
// from the NextAfter the error names).
func (s *Service) Events(ctx context.Context, req EventsRequest) (EventsResult, error) {
	req.Path = NormalizePath(req.Path)
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	ac, scope, err := s.begin(ctx, req.Project, req.Path)
	limit := req.Limit
	if err == nil {
		limit, err = eventsLimit(req)
	}
	var res EventsResult
	if err == nil {
		res, err = s.followFeed(ctx, scope, req, limit)
	}
	s.logOp(ctx, "events", ac, req.Project, req.Path, err, slog.Int64("after", req.After), slog.Int("events", len(res.Events)))
	return res, err
}

func eventsLimit(req EventsRequest) (int, error) {
	switch {
	case req.After < 0:
		return 0, agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf("after must be >= 0, got %d", req.After), "after")
	case req.Limit < 0 || req.Limit > MaxEventsLimit:
		return 0, agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf("limit must be between 1 and %d, got %d", MaxEventsLimit, req.Limit), "limit")
	case req.Wait < 0:
		return 0, agentfiles.NewError(agentfiles.CodeInvalidArgument, "wait_ms must be >= 0", "wait_ms")
	case req.Limit == 0:
		return DefaultEventsLimit, nil
	}
	return req.Limit, nil
}

// followFeed reads the feed, and while it finds nothing waits for a change until the wait ends,
// holding one of the tenant's waiting slots (Config.MaxFeedWaits; RESOURCE_BUSY when none is
// free).
func (s *Service) followFeed(ctx context.Context, scope driver.Scope, req EventsRequest, limit int) (EventsResult, error) {
	deadline := time.Now().Add(min(req.Wait, s.cfg.FeedMaxWait))
	waiting := false
	for {
		res, err := inView(ctx, s, scope, func(tx driver.ReadTx) (EventsResult, error) { return readFeed(ctx, tx, req, limit) })
		left := time.Until(deadline)
		if err != nil || len(res.Events) > 0 || left <= 0 {
			return res, err
		}
		if !waiting {
			release, ok := s.feedWaits.TryAcquire(scope.Tenant)
			if !ok {
				return EventsResult{}, agentfiles.NewError(agentfiles.CodeResourceBusy, fmt.Sprintf(
					"this API key already has %d file_events calls waiting for changes; wait for one of them to return, or call without wait_ms", s.cfg.MaxFeedWaits), "wait_ms")
			}
			defer release()
			waiting = true
		}
		if w, ok := s.store.(driver.FeedWaiter); ok {
			err = w.WaitForEvents(ctx, scope, res.NextAfter, left)
		} else {
			err = driver.WaitForSignal(ctx, nil, min(left, feedPollInterval))
		}
		if err != nil {
			return EventsResult{}, ctxError(err)
		}
		req.After = res.NextAfter
	}
}

func readFeed(ctx context.Context, tx driver.ReadTx, req EventsRequest, limit int) (EventsResult, error) {
	f, err := feedStore(tx)
	if err != nil {
		return EventsResult{}, err
	}
	head, pruned, err := f.FeedHead(ctx)
	if err != nil {
		return EventsResult{}, err
	}
	switch {
	case req.After > head:
		return EventsResult{}, agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"after %d lies beyond the newest change of the project (position %d); pass a next_after or a checkpoint's position", req.After, head), "after")
	case req.After < pruned:
		return EventsResult{}, agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"the changes up to position %d are no longer kept; read the project again (file_list, file_read) and follow from after %d", pruned, head), "after")
	}
	evs, err := f.Events(ctx, req.After, req.Path, limit)
	if err != nil {
		return EventsResult{}, err
	}
	res := EventsResult{Events: evs, NextAfter: head}
	if len(evs) == limit {
		res.NextAfter, res.Truncated = evs[len(evs)-1].Position, evs[len(evs)-1].Position < head
	}
	if res.Events == nil {
		res.Events = []driver.Event{}
	}
	return res, nil
}
