package expr

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want []Term
		str  string
	}{
		{"guidelines", []Term{{Name: "guidelines"}}, "guidelines"},
		{"lang/python+java,docs/api,guidelines", []Term{
			{Name: "lang", Patterns: []string{"python", "java"}},
			{Name: "docs", Patterns: []string{"api"}},
			{Name: "guidelines"},
		}, "lang/python+java,docs/api,guidelines"},
		{"  lang /\tpython +java ,\n docs ", []Term{
			{Name: "lang", Patterns: []string{"python", "java"}},
			{Name: "docs"},
		}, "lang/python+java,docs"},
		{"docs/guides/*.md", []Term{{Name: "docs", Patterns: []string{"guides/*.md"}}}, "docs/guides/*.md"},
		{"docs/{intro,setup}.md+[a-c]*,lang", []Term{
			{Name: "docs", Patterns: []string{"{intro,setup}.md", "[a-c]*"}},
			{Name: "lang"},
		}, "docs/{intro,setup}.md+[a-c]*,lang"},
		{"docs/[+,]x", []Term{{Name: "docs", Patterns: []string{"[+,]x"}}}, "docs/[+,]x"},
		{`docs/a\,b+c`, []Term{{Name: "docs", Patterns: []string{`a\,b`, "c"}}}, `docs/a\,b+c`},
		{"_system/**/*.md", []Term{{Name: "_system", Patterns: []string{"**/*.md"}}}, "_system/**/*.md"},
		{"a,a", []Term{{Name: "a"}, {Name: "a"}}, "a,a"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			e, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, e.Terms); diff != "" {
				t.Errorf("terms (-want +got):\n%s", diff)
			}
			if got := e.String(); got != tt.str {
				t.Errorf("String() = %q, want %q", got, tt.str)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in   string
		pos        int
		arg        string
		suggestion string
	}{
		{"empty", "", 0, "", "name a category"},
		{"blank", "   ", 0, "   ", "name a category"},
		{"double comma", "a,,b", 2, ",", "a,b"},
		{"leading comma", ",a", 0, ",", "a"},
		{"trailing comma", "a,b,", 4, "", "a,b"},
		{"empty pattern", "a/", 1, "a/", "a (the category's default patterns) or a/pattern"},
		{"empty pattern before comma", "a/,b", 1, "a/", "a (the category's"},
		{"no name", "/p", 0, "/p", "write name/pattern, e.g. docs/p"},
		{"trailing plus", "a/b+", 3, "+", "a/b"},
		{"leading plus", "a/+b", 2, "+", "a/b"},
		{"double plus", "a/b++c", 4, "++", "a/b+c"},
		{"plus in name", "python+java", 6, "python+", "python,java"},
		{"plus alone", "+", 0, "+", "name/pattern1+pattern2"},
		{"unclosed brace", "a/{x,y", 2, "{x,y", "close the alternatives"},
		{"stray brace", "a/x}", 3, "}", "{a,b}"},
		{"unclosed bracket", "a/[ab", 2, "[ab", "close the character class"},
		{"dangling escape", `a/b\`, 3, `\`, "remove it"},
		{"absolute pattern", "a//etc/passwd", 2, "/etc/passwd", "etc/passwd"},
		{"dot dot", "a/../b", 2, "../b", "category_add"},
		{"control char", "a\x00b", 1, "\x00", "remove it"},
		{"bad utf8", "a\xffb", 1, "\xff", ""},
		{"too long", strings.Repeat("a,", 3000), MaxExpressionBytes, strings.Repeat("a,", 16) + "...", "collection_add"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.in)
			if !errors.Is(err, ErrParseError) {
				t.Fatalf("Parse(%q) = %v, want PARSE_ERROR", tt.in, err)
			}
			var xe *agentfiles.Error
			var se *SyntaxError
			if !errors.As(err, &xe) || !errors.As(err, &se) {
				t.Fatalf("Parse(%q) = %v, want an *agentfiles.Error caused by a *SyntaxError", tt.in, err)
			}
			if se.Pos != tt.pos || se.Text != tt.arg {
				t.Errorf("Pos, Text = %d, %q; want %d, %q", se.Pos, se.Text, tt.pos, tt.arg)
			}
			if !strings.Contains(se.Suggestion, tt.suggestion) {
				t.Errorf("Suggestion = %q, want it to contain %q", se.Suggestion, tt.suggestion)
			}
			if xe.Code != CodeParseError || xe.Message != se.Error() || xe.Arg != "" || err.Error() != "PARSE_ERROR: "+se.Error() {
				t.Errorf("Error() = %q, Arg %q; want PARSE_ERROR: %q", err.Error(), xe.Arg, se.Error())
			}
		})
	}
}

// TestParseErrorMessage pins the text agents see for a PARSE_ERROR (the message: ErrorOf adds
// nothing since Arg is empty): the quoted offending text, then the suggestion.
func TestParseErrorMessage(t *testing.T) {
	for in, want := range map[string]string{
		"a,,b":   `empty term: two commas with nothing between them, or a leading comma at byte 2 of the expression (","); suggestion: a,b`,
		"a\xffb": `expression is not valid UTF-8 at byte 1 of the expression ("\xff")`,
		"":       "expression is empty at byte 0 of the expression; suggestion: name a category or collection, e.g. docs or lang/python+java; call category_list and collection_list to see the names",
	} {
		_, err := Parse(in)
		var xe *agentfiles.Error
		if !errors.As(err, &xe) || xe.Message != want {
			t.Errorf("Parse(%q) message:\n got %q\nwant %q", in, xe.Message, want)
		}
	}
}

func TestValidateName(t *testing.T) {
	for _, ok := range []string{"lang", "api-reference", "v1.2", "x_y", "日本語", strings.Repeat("a", 30)} {
		if err := ValidateName(ok); err != nil {
			t.Errorf("ValidateName(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "_system", "-x", "a b", "a+b", "a,b", "a/b", "a\tb", strings.Repeat("a", 31), "a\u200bb"} {
		if err := ValidateName(bad); !errors.Is(err, ErrInvalidName) {
			t.Errorf("ValidateName(%q) = %v, want INVALID_NAME", bad, err)
		}
	}
}
