package shell_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
