package fileid

import (
	"context"
	"errors"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/google/go-cmp/cmp"
)

// TestCodes produces an error of every code the package returns and checks that Codes lists
// it, with the kind the bindings turn into an HTTP status, and that errors.Is matches the
// package's sentinel or, for a shared code, agentfiles' one.
func TestCodes(t *testing.T) {
	ctx := context.Background()
	reg := mustNew(t, mapRoots(seedTree, seedOrder), Options{})
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	expired, cancel := context.WithTimeout(ctx, 0)
	defer cancel()
	second := func(_ any, err error) error { return err }

	tests := []struct {
		name     string
		err      error
		sentinel error
		kind     agentfiles.Kind
	}{
		{"malformed file ID", second(reg.File("guide.md")), ErrInvalidFileID, agentfiles.KindInvalid},
		{"unknown file ID", second(reg.File("f99")), ErrFileIDNotFound, agentfiles.KindNotFound},
		{"unknown section", second(reg.TableOfContents("f1", TOCOptions{Section: "9"})), ErrSectionNotFound, agentfiles.KindNotFound},
		{"bad expression", second(reg.Search(ctx, SearchRequest{Query: "a("})), ErrInvalidRegex, agentfiles.KindInvalid},
		{"missing directory", second(DirRoot("docs", "")), ErrInvalidRoot, agentfiles.KindInvalid},
		{"empty query", second(reg.Search(ctx, SearchRequest{})), agentfiles.ErrInvalidQuery, agentfiles.KindInvalid},
		{"bad include pattern", second(New(ctx, nil, Options{Include: []string{"[a-"}})), agentfiles.ErrInvalidArgument, agentfiles.KindInvalid},
		{"canceled", second(reg.Search(canceled, SearchRequest{Query: "x"})), context.Canceled, agentfiles.KindCanceled},
		{"deadline", second(New(expired, mapRoots(seedTree, seedOrder), Options{})), context.DeadlineExceeded, agentfiles.KindTimeout},
	}
	listed := map[agentfiles.Code]bool{}
	for _, c := range Codes() {
		listed[c] = true
	}
	produced := map[agentfiles.Code]bool{}
	for _, tt := range tests {
		code := agentfiles.ErrorCode(tt.err)
		produced[code] = true
		switch {
		case !errors.Is(tt.err, tt.sentinel):
			t.Errorf("%s: %v does not match %v", tt.name, tt.err, tt.sentinel)
		case !listed[code]:
			t.Errorf("%s: code %s is not in Codes()", tt.name, code)
		case code.Kind() != tt.kind:
			t.Errorf("%s: code %s has kind %q, want %q", tt.name, code, code.Kind(), tt.kind)
		}
	}
	var unproduced []string
	for _, c := range Codes() {
		if !produced[c] {
			unproduced = append(unproduced, c.String())
		}
	}
	if diff := cmp.Diff([]string(nil), unproduced); diff != "" {
		t.Errorf("Codes() lists codes no test produces (-want +got):\n%s", diff)
	}
}
