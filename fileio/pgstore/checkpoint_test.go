package pgstore_test

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
)

func TestCheckpoints(t *testing.T) {
	storetest.ExerciseCheckpoints(t, func(t *testing.T) driver.Store {
		s, _ := newStore(t, pgstore.Options{})
		return s
	})
}

// TestFeedAcrossInstances follows the change feed on one Store while another Store (its own
// pool, the same database) writes: every change arrives once, in order.
func TestFeedAcrossInstances(t *testing.T) {
	writer, url := newStore(t, pgstore.Options{})
	reader := pgtest.Open(t, url, pgstore.Open, pgstore.Options{})
	storetest.FollowFeedWhileWriting(t, writer, reader)
}

func TestPinnedVersionsOutliveRetention(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{PurgeInterval: -1})
	storetest.PinnedVersionsOutliveRetention(t, s, func(t *testing.T) {
		if _, err := s.Purge(context.Background()); err != nil {
			t.Fatalf("Purge: %v", err)
		}
	})
}
