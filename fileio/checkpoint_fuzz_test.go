package fileio

import (
	"strconv"
	"testing"

	"github.com/agentfiles/agentfiles"
)

// FuzzCheckpointArgs: a checkpoint id or a file_checkpoints cursor is either refused with
// INVALID_ARGUMENT or read back exactly as it was written.
func FuzzCheckpointArgs(f *testing.F) {
	for _, s := range []string{"1", "42", "0", "-1", "01", "+3", " 3", "9223372036854775807", "9223372036854775808", "",
		encodeIDCursor("7"), "azE", "k1|7", encodeIDCursor("x")} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := parseCheckpointID(s)
		switch {
		case err != nil && agentfiles.ErrorCode(err) != agentfiles.CodeInvalidArgument:
			t.Fatalf("parseCheckpointID(%q): %v, want INVALID_ARGUMENT", s, err)
		case err == nil && (id < 1 || strconv.FormatInt(id, 10) != s):
			t.Fatalf("parseCheckpointID(%q) = %d", s, id)
		}
		after, err := decodeIDCursor(s)
		switch {
		case err != nil && agentfiles.ErrorCode(err) != agentfiles.CodeInvalidArgument:
			t.Fatalf("decodeIDCursor(%q): %v, want INVALID_ARGUMENT", s, err)
		case err == nil && s != "" && after < 1:
			t.Fatalf("decodeIDCursor(%q) = %d", s, after)
		case err == nil && s != "":
			again, err := decodeIDCursor(encodeIDCursor(strconv.FormatInt(after, 10)))
			if err != nil || again != after {
				t.Fatalf("cursor of %d reads back as %d, %v", after, again, err)
			}
		}
	})
}
