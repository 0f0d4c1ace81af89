package fileio

import (
	"testing"

	"github.com/agentfiles/agentfiles"
)

// FuzzDecodeCursor: every string a caller passes as the cursor of file_list, file_grep or
// file_glob is either refused with INVALID_ARGUMENT or decodes to a position that encodes back
// to a cursor naming the same position.
func FuzzDecodeCursor(f *testing.F) {
	fp := fingerprint("list", "/docs", "1")
	for _, c := range []searchCursor{{Path: "/a"}, {Path: "/docs/é.md", Line: 7}, {Path: "/x|y", Line: 0}} {
		f.Add(c.encode(fp))
	}
	f.Add("")
	f.Add("not-a-cursor")
	f.Add("YzF8MDAwMDAwMDAwMDAwfDB8L2E") // another fingerprint
	f.Fuzz(func(t *testing.T, s string) {
		c, err := decodeCursor(s, fp)
		if err != nil {
			if agentfiles.ErrorCode(err) != agentfiles.CodeInvalidArgument {
				t.Fatalf("cursor %q: %v, want INVALID_ARGUMENT", s, err)
			}
			return
		}
		if s == "" {
			if c != (searchCursor{}) {
				t.Fatalf("empty cursor decodes to %+v", c)
			}
			return
		}
		again, err := decodeCursor(c.encode(fp), fp)
		if err != nil || again != c {
			t.Fatalf("cursor %q: %+v re-encodes to %+v, %v", s, c, again, err)
		}
	})
}
