package memstore_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
)

// BenchmarkRewind1000: fileio.Service.Rewind of 1,000 changed files against 1,000 writes (see
// storetest.BenchmarkRewind).
func BenchmarkRewind1000(b *testing.B) {
	storetest.BenchmarkRewind(b, memstore.New(memstore.Options{}), 1000)
}
