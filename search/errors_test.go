package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/google/go-cmp/cmp"
)

// TestBackendError: coded errors from the store or the index keep their code (a database that
// is down stays UNAVAILABLE, retryable), context errors pass, and anything else — INTERNAL
// included — becomes SEARCH_BACKEND_ERROR without the cause in the message.
func TestBackendError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want agentfiles.Code
	}{
		{"unavailable index", agentfiles.WrapError(agentfiles.CodeUnavailable, "down", "", errors.New("dial tcp")), agentfiles.CodeUnavailable},
		{"permission", agentfiles.NewError(agentfiles.CodePermissionDenied, "no", ""), agentfiles.CodePermissionDenied},
		{"internal", agentfiles.NewError(agentfiles.CodeInternal, "bug", ""), CodeSearchBackendError},
		{"uncoded", errors.New("SELECT failed at 10.0.0.7"), CodeSearchBackendError},
		{"wrapped uncoded", fmt.Errorf("x: %w", errors.New("boom")), CodeSearchBackendError},
		{"deadline", context.DeadlineExceeded, agentfiles.CodeTimeout},
		{"canceled", fmt.Errorf("query: %w", context.Canceled), agentfiles.CodeCanceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := backendError("reading the search index failed", tc.err)
			if got := agentfiles.ErrorCode(err); got != tc.want {
				t.Errorf("code %s, want %s (%v)", got, tc.want, err)
			}
			var e *agentfiles.Error
			if errors.As(err, &e) && !errors.Is(err, &agentfiles.Error{Code: tc.want}) {
				t.Errorf("%v does not match the %s sentinel", err, tc.want)
			}
			if tc.want == CodeSearchBackendError && err.Error() != "SEARCH_BACKEND_ERROR: reading the search index failed; retry later" {
				t.Errorf("message %q", err.Error())
			}
			if !slices.Contains(Codes(), tc.want) {
				t.Errorf("Codes() lacks %s", tc.want)
			}
		})
	}
}

// TestSharedCodes: search's errors match the shared sentinels of package agentfiles, and the
// caller-key error vault's.
func TestSharedCodes(t *testing.T) {
	s, err := NewSearcher(nil, nil, SearcherOptions{})
	if s != nil || !errors.Is(err, agentfiles.ErrInvalidConfig) {
		t.Errorf("NewSearcher(nil, nil): %v, want INVALID_CONFIG", err)
	}
	_, err = indexdriver.IndexedFile{Path: "/a", Chunks: []indexdriver.IndexedChunk{{Vector: []float32{1}}}}.VectorDims()
	if !errors.Is(err, agentfiles.ErrInvalidArgument) {
		t.Errorf("VectorDims of a lexical-only file with a vector: %v, want INVALID_ARGUMENT", err)
	}
	var names []string
	for _, c := range Codes() {
		names = append(names, c.String())
	}
	want := []string{"INVALID_QUERY", "INVALID_PATTERN", "MODEL_ERROR", "INVALID_ARGUMENT", "PERMISSION_DENIED", "SEARCH_BACKEND_ERROR", "UNAVAILABLE",
		"INVALID_CONFIG", "CREDENTIAL_UNAVAILABLE", "TIMEOUT", "CANCELED", "INTERNAL"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("Codes() (-want +got):\n%s", diff)
	}
}
