package pgstore_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
)

// TestStoretest runs the fileio acceptance suite against PostgreSQL, every store on a fresh
// database.
func TestStoretest(t *testing.T) {
	storetest.Exercise(t, func(t *testing.T) fileio.Store {
		s, _ := newStore(t, pgstore.Options{})
		return s
	})
}

// TestModel runs the random-operation model harness against PostgreSQL with more seeds than
// Exercise does; every operation's result must agree with the reference model (which memstore
// also passes, operation by operation).
func TestModel(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	for seed := int64(100); seed < 108; seed++ {
		storetest.RunModel(t, s, seed, 400)
	}
}

// TestArchiveRoundTrip imports this repository (and names with spaces and accents) into
// PostgreSQL and exports it again in every format.
func TestArchiveRoundTrip(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	storetest.ExerciseArchiveTree(t, s, "../..", 400)
}
