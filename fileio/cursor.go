package fileio

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles"
)

// searchCursor is where a Grep or Glob answer stopped: everything up to line Line of file Path
// was reported (Line 0: all of Path). It travels as an opaque string bound to the arguments
// of the call that made it, so a cursor cannot continue a different search.
type searchCursor struct {
	Path string
	Line int
}

// cursorVersion prefixes every cursor; a change of format changes it.
const cursorVersion = "c1"

// fingerprint binds a cursor to the arguments that shape a result.
func fingerprint(args ...string) string {
	h := sha256.New()
	for _, a := range args {
		h.Write([]byte(a))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
}

func (c searchCursor) encode(fp string) string {
	raw := cursorVersion + "|" + fp + "|" + strconv.Itoa(c.Line) + "|" + c.Path
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// decodeCursor parses s ("" is the start) made by a call with fingerprint fp.
func decodeCursor(s, fp string) (searchCursor, error) {
	if s == "" {
		return searchCursor{}, nil
	}
	bad := func(why string) error {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, "cursor "+why+
			"; pass next_cursor exactly as returned, with the same other arguments, or leave it out to start over", "cursor")
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return searchCursor{}, bad("is not one this tool returned")
	}
	parts := strings.SplitN(string(raw), "|", 4)
	if len(parts) != 4 || parts[0] != cursorVersion {
		return searchCursor{}, bad("is not one this tool returned")
	}
	if parts[1] != fp {
		return searchCursor{}, bad("belongs to a call with other arguments")
	}
	line, err := strconv.Atoi(parts[2])
	if err != nil || line < 0 || ValidatePath(parts[3]) != nil || parts[3] == "" {
		return searchCursor{}, bad("is damaged")
	}
	return searchCursor{Path: parts[3], Line: line}, nil
}
