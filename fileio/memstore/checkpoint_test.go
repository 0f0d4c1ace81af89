package memstore_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
)

func TestCheckpoints(t *testing.T) {
	storetest.ExerciseCheckpoints(t, func(t *testing.T) driver.Store { return memstore.New(memstore.Options{}) })
}

func TestPinnedVersionsOutliveRetention(t *testing.T) {
	storetest.PinnedVersionsOutliveRetention(t, memstore.New(memstore.Options{}), nil)
}
