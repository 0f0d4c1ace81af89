package adapters

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzIntegralNumbers: on valid JSON, integralNumbers yields valid JSON with the same values
// (numbers compared as float64, strings untouched), and whole numbers below 2^53 without a
// fraction or exponent.
func FuzzIntegralNumbers(f *testing.F) {
	for _, seed := range []string{`{"a":2.0}`, `[1e0,-3.00E+2,2.5,"2.0",{"x":"\"1.0"}]`, `1e300`, `-0.0`, `{"s":"a\\"1.0"}`, `9007199254740993.0`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var before any
		if json.Unmarshal([]byte(in), &before) != nil {
			return
		}
		out := integralNumbers([]byte(in))
		var after any
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("%q became invalid JSON %q: %v", in, out, err)
		}
		if diff := cmp.Diff(before, after); diff != "" {
			t.Fatalf("%q → %q changed values (-before +after):\n%s", in, out, diff)
		}
	})
}
