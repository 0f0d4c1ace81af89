package adapters

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
)

// CheckText reports, as INVALID_ARGUMENT, arguments that are not UTF-8 text: raw bytes that are
// not UTF-8 (0xFF), and \u escapes of lone UTF-16 surrogates (\ud800 without its pair). A JSON
// decoder would silently turn either into U+FFFD, so that what is stored differs from what was
// sent. It runs on the raw JSON, before anything decodes it; Tool.Call calls it for every tool.
// The error names the top-level argument that holds the bad text when it can tell, and never
// repeats the text.
func CheckText(args []byte) error {
	off, what := badText(args)
	if off < 0 {
		return nil
	}
	arg := ""
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) == nil {
		for k, v := range m {
			if o, _ := badText(v); o >= 0 && utf8.ValidString(k) && len(k) <= maxNameBytes {
				arg = k
				break
			}
		}
	}
	msg := "arguments must be UTF-8 text: " + what + " at byte offset " + strconv.Itoa(off) + "; send text as UTF-8 (content must be UTF-8)"
	if arg != "" {
		msg = "argument " + arg + " must be UTF-8 text: " + what + "; send text as UTF-8 (content must be UTF-8)"
	}
	return &agentfiles.Error{Code: agentfiles.CodeInvalidArgument, Message: msg, Arg: arg}
}

// badText returns the offset of the first byte that is not UTF-8 or the first lone surrogate
// escape, and what it is; -1 when there is none.
func badText(b []byte) (int, string) {
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c < utf8.RuneSelf && c != '\\':
			i++
		case c == '\\':
			// Backslashes only occur inside strings in valid JSON; anything else is left to the
			// decoder to refuse.
			if i+1 >= len(b) || b[i+1] != 'u' {
				i += 2
				continue
			}
			r, ok := hex4(b, i+2)
			if !ok {
				i += 2
				continue
			}
			switch {
			case 0xD800 <= r && r <= 0xDBFF:
				if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
					if lo, ok := hex4(b, i+8); ok && 0xDC00 <= lo && lo <= 0xDFFF {
						i += 12
						continue
					}
				}
				return i, "a lone surrogate escape \\u" + string(b[i+2:i+6])
			case 0xDC00 <= r && r <= 0xDFFF:
				return i, "a lone surrogate escape \\u" + string(b[i+2:i+6])
			}
			i += 6
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				return i, "byte 0x" + strconv.FormatUint(uint64(c), 16) + " is not UTF-8"
			}
			i += size
		}
	}
	return -1, ""
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
