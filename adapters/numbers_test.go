package adapters_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
)

// TestIntegralFloatsAreIntegers: a whole number written as a float passes the schema's
// "integer" type and so must reach the tool as that integer; a number that is not a usable
// integer is refused with a message that says an integer is needed.
func TestIntegralFloatsAreIntegers(t *testing.T) {
	tool := greetTool()
	tests := []struct {
		args  string
		times int    // hellos in the greeting
		code  string // "" for success
		msg   string
	}{
		{`{"name":"a","times":2}`, 2, "", ""},
		{`{"name":"a","times":2.0}`, 2, "", ""},
		{`{"name":"a","times":1e0}`, 1, "", ""},
		{`{"name":"a","times":3.00E+0}`, 3, "", ""},
		{`{"name":"a.0e1","times":20E-1}`, 2, "", ""},
		{`{"name":"a","times":1e300}`, 0, "INVALID_ARGUMENT", "whole number"},
	}
	for _, tc := range tests {
		res, err := tool.Call(context.Background(), json.RawMessage(tc.args))
		if got := agentfiles.ErrorCode(err).String(); tc.code != "" || err != nil {
			if got != tc.code || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%s: %v, want %s mentioning %q", tc.args, err, tc.code, tc.msg)
			}
			continue
		}
		raw, _ := json.Marshal(res)
		if n := strings.Count(string(raw), "hello "); n != tc.times {
			t.Errorf("%s: %s, want %d greetings", tc.args, raw, tc.times)
		}
	}
}
