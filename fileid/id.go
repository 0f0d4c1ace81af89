package fileid

import (
	"strconv"

	"github.com/agentfiles/agentfiles"
)

// listHint is appended to every file-ID error: it tells an agent how to recover.
const listHint = "; call list_documentation_files to see the valid file IDs"

// maxIDDigits bounds the numeric part of a file ID; no registry holds 10^12 files, and the
// bound keeps ParseID free of overflow.
const maxIDDigits = 12

// ParseID parses a file ID of the form f1, f2, … (regular expression ^f[1-9][0-9]*$) and
// returns its number. A malformed ID fails with INVALID_FILE_ID. ParseID does not check that
// the ID names a file; [Registry.File] does that.
func ParseID(id string) (int, error) {
	bad := func(why string) error {
		return agentfiles.NewError(CodeInvalidFileID,
			"file IDs look like f1, f2, f3 ("+why+")"+listHint, id)
	}
	switch {
	case id == "":
		return 0, bad("the ID is empty")
	case id[0] != 'f':
		return 0, bad("an ID starts with a lower-case f")
	case len(id) == 1:
		return 0, bad("a number must follow the f")
	case id[1] == '0':
		return 0, bad("the number has no leading zero and starts at 1")
	case len(id)-1 > maxIDDigits:
		return 0, bad("the number is too long")
	}
	n := 0
	for i := 1; i < len(id); i++ {
		c := id[i]
		if c < '0' || c > '9' {
			return 0, bad("only digits may follow the f")
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}

// FormatID returns the file ID for number n (n ≥ 1), e.g. FormatID(3) == "f3".
func FormatID(n int) string { return "f" + strconv.Itoa(n) }
