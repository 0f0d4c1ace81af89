package search_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/internal/pgtest"
)

// TestMain stops the PostgreSQL server that pgtest.New may have started (allprojects_test.go).
func TestMain(m *testing.M) { pgtest.Main(m) }
