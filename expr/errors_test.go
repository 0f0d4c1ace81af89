package expr

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
)

// TestErrorsMatchSharedSentinels checks that expr's errors with shared codes match the
// agentfiles sentinels, that its own codes match only their own sentinels, and that every code
// returned is listed by Codes.
func TestErrorsMatchSharedSentinels(t *testing.T) {
	c, _ := setupHandWritten(t)
	ctx := context.Background()
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	expired, cancel2 := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel2()
	_, parseErr := Parse("a,,b")
	for _, tt := range []struct {
		name     string
		err      error
		sentinel error
	}{
		{"name taken", c.AddCategory(ctx, Category{Name: "docs", Dir: "docs"}), agentfiles.ErrAlreadyExists},
		{"missing dir", c.AddCategory(ctx, Category{Name: "x", Dir: "nope"}), agentfiles.ErrInvalidArgument},
		{"canceled", c.AddCategory(canceled, Category{Name: "x", Dir: "docs"}), agentfiles.ErrCanceled},
		{"deadline", c.AddCategory(expired, Category{Name: "x", Dir: "docs"}), agentfiles.ErrTimeout},
		{"unknown", c.RemoveCollection(ctx, "nope"), ErrUnknownName},
		{"in use", c.RemoveCategory(ctx, "lang"), ErrInUse},
		{"parse", parseErr, ErrParseError},
	} {
		if !errors.Is(tt.err, tt.sentinel) {
			t.Errorf("%s: errors.Is(%v, %v) = false", tt.name, tt.err, tt.sentinel)
		}
		if errors.Is(tt.err, agentfiles.ErrInternal) {
			t.Errorf("%s: %v matches INTERNAL", tt.name, tt.err)
		}
		if code := agentfiles.ErrorCode(tt.err); !slices.Contains(Codes(), code) {
			t.Errorf("%s: code %s is not listed by Codes", tt.name, code)
		}
	}
}
