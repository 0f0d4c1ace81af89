package consult

import (
	"sync"

	"github.com/agentfiles/agentfiles"
)

// maxCachedEntries bounds an Expander's entry cache; when it is full the cache starts over.
const maxCachedEntries = 1024

// entryCache remembers parsed and compiled files-list entries, so that a files list sent again
// on every turn is validated and compiled once. Only valid entries are kept: a bad entry's
// *agentfiles.Error is built afresh each time, so no caller can see another's. Safe for
// concurrent use.
type entryCache struct {
	mu    sync.Mutex
	specs map[string]entrySpec
}

// parse is parseEntry, answered from the cache when the entry was seen before.
func (c *entryCache) parse(entry string) (entrySpec, *agentfiles.Error) {
	c.mu.Lock()
	spec, ok := c.specs[entry]
	c.mu.Unlock()
	if ok {
		return spec, nil
	}
	spec, err := parseEntry(entry)
	if err != nil {
		return spec, err
	}
	c.mu.Lock()
	if c.specs == nil || len(c.specs) >= maxCachedEntries {
		c.specs = make(map[string]entrySpec)
	}
	c.specs[entry] = spec
	c.mu.Unlock()
	return spec, nil
}
