package storetest

import (
	"errors"
	"sync"

	"github.com/agentfiles/agentfiles/fileio"
)

func asFileioError(err error, target **fileio.Error) bool { return errors.As(err, target) }

type errString string

func (e errString) Error() string { return string(e) }

// atomic32 is a mutex-guarded counter (keeps the zero value usable inside structs).
type atomic32 struct {
	mu sync.Mutex
	n  int
}

func (a *atomic32) add() { a.mu.Lock(); a.n++; a.mu.Unlock() }

func (a *atomic32) get() int { a.mu.Lock(); defer a.mu.Unlock(); return a.n }
