package search

import (
	"runtime"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/google/go-cmp/cmp"
)

// TestOlderAnalysisMemo: the memo answers a list it has seen from memory, finds a new list's
// files again, and does not keep a list alive once the index has let it go (issue 41: caches
// stay inside their budget).
func TestOlderAnalysisMemo(t *testing.T) {
	var m olderAnalysisMemo
	scope := driver.Scope{Tenant: "t", Project: "p"}
	newList := func() []indexdriver.PathFileState {
		return []indexdriver.PathFileState{
			{Path: "/a", FileState: indexdriver.FileState{Tokenizer: indexdriver.TokenizerName}},
			{Path: "/b", FileState: indexdriver.FileState{Tokenizer: "older"}},
		}
	}
	list := newList()
	first := m.of(scope, list)
	if diff := cmp.Diff([]indexdriver.PathFileState{list[1]}, first); diff != "" {
		t.Fatalf("older files (-want +got):\n%s", diff)
	}
	if again := m.of(scope, list); &again[0] != &first[0] {
		t.Errorf("the same list was scanned again instead of answered from the memo")
	}
	other := newList()
	other[1].Tokenizer = indexdriver.TokenizerName
	if got := m.of(scope, other); len(got) != 0 {
		t.Errorf("a new list of the project was answered from the memo of the old one: %v", got)
	}
	m.of(scope, list)
	collected := make(chan struct{})
	runtime.AddCleanup(&list[0], func(ch chan struct{}) { close(ch) }, collected)
	list = nil
	poll.Eventually(t, 10*time.Second, "the list collected once nothing but the memo refers to it", func() bool {
		runtime.GC()
		select {
		case <-collected:
			return true
		default:
			return false
		}
	})
}
