package adapters

import (
	"bytes"
	"math"
	"strconv"
)

// maxExactInteger is the largest magnitude a float64 holds with every integer below it exact.
const maxExactInteger = 1 << 53

// integralNumbers rewrites the JSON numbers of args that are written as floats but are whole
// (2.0, 1e0, -3.00E+2) as plain integers, so that an integer argument accepts every spelling
// the schema's "integer" type accepts. Strings are left alone; a float that is not whole, or
// whose magnitude is 2^53 or more (where float64 loses integers), stays as it is, and decoding
// says that the argument needs an integer. args must be valid JSON.
func integralNumbers(args []byte) []byte {
	var out []byte // nil until the first rewrite
	last, inString := 0, false
	for i := 0; i < len(args); i++ {
		c := args[i]
		switch {
		case inString:
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(args) && bytes.IndexByte([]byte("0123456789+-.eE"), args[j]) >= 0 {
				j++
			}
			lit := args[i:j]
			if bytes.ContainsAny(lit, ".eE") {
				if f, err := strconv.ParseFloat(string(lit), 64); err == nil && f == math.Trunc(f) && math.Abs(f) < maxExactInteger {
					out = append(append(out, args[last:i]...), strconv.FormatInt(int64(f), 10)...)
					last = j
				}
			}
			i = j - 1
		}
	}
	if out == nil {
		return args
	}
	return append(out, args[last:]...)
}
