package memstore_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
)

func TestModelQuick(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		storetest.RunModel(t, memstore.New(), seed, 400)
	}
}

func TestStore(t *testing.T) {
	storetest.Exercise(t, func(t *testing.T) fileio.Store { return memstore.New() })
}
