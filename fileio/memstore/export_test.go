package memstore

import "github.com/agentfiles/agentfiles/fileio/driver"

// LastJobError returns the error text recorded by the last RetryJob of the pending job for
// (scope, path), and whether such a job exists. For tests.
func (s *Store) LastJobError(scope driver.Scope, path string) (string, bool) {
	o := &s.outbox
	o.mu.Lock()
	defer o.mu.Unlock()
	jr := o.jobs[jobKey{scope, path}]
	if jr == nil {
		return "", false
	}
	return jr.lastError, true
}
