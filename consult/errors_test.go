package consult

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

// TestErrorsMatchSentinels checks representative errors of each kind against the sentinels,
// consult's own and the shared agentfiles ones, and that Codes lists every code seen.
func TestErrorsMatchSentinels(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{"d/a.py": "a\n", "d/.env": "K=1\n"})
	_, errs := Expand([]string{root + "/missing.py", root + "/d", root + "/d/*", root + "/d/.env"})
	if len(errs) != 4 {
		t.Fatalf("errors: %v", errs)
	}
	_, prepErr := NewConsultant(ConsultantOptions{}).Prepare(context.Background(), Request{Files: []string{root + "/d/a.py"}})
	tests := []struct {
		name     string
		err      error
		sentinel error
		kind     agentfiles.Kind
	}{
		{"missing file", errs[0], agentfiles.ErrNotFound, agentfiles.KindNotFound},
		{"directory", errs[1], agentfiles.ErrIsDirectory, agentfiles.KindConflict},
		{"no extension", errs[2], ErrMissingExtension, agentfiles.KindInvalid},
		{"ignored", errs[3], ErrIgnored, agentfiles.KindPermission},
		{"no query", prepErr, agentfiles.ErrInvalidArgument, agentfiles.KindInvalid},
		{"unexpected stat error", statError("/x", errors.ErrUnsupported), agentfiles.ErrInternal, agentfiles.KindInternal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.sentinel) {
				t.Errorf("errors.Is(%v, %v) = false", tc.err, tc.sentinel)
			}
			code := agentfiles.ErrorCode(tc.err)
			if diff := cmp.Diff(tc.kind, code.Kind()); diff != "" {
				t.Errorf("kind of %s (-want +got):\n%s", code, diff)
			}
			if !slices.Contains(Codes(), code) {
				t.Errorf("Codes() lacks %s", code)
			}
		})
	}
	if !ErrModelError.Code.Retryable() || ErrContextTooLarge.Code.Retryable() {
		t.Error("MODEL_ERROR must be retryable (a provider failure) and CONTEXT_TOO_LARGE not")
	}
}
