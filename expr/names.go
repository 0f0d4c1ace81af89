package expr

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
)

// MaxNameChars is the longest name, in characters, that a new category or collection may have.
const MaxNameChars = 30

// ValidateName applies the strict rules for naming a new category or collection: 1 to
// MaxNameChars characters, no whitespace or control characters, none of the expression
// separators "+", "," and "/", and no leading "_" (reserved for system categories) or "-".
// It returns an *agentfiles.Error with code INVALID_NAME that says which rule was broken.
//
// Expressions are parsed leniently; these rules apply only when a name is created.
func ValidateName(name string) error {
	bad := func(msg string) error {
		return agentfiles.NewError(CodeInvalidName, msg+"; use letters, digits, '-', '_' and '.', e.g. api-reference", name)
	}
	switch n := utf8.RuneCountInString(name); {
	case name == "":
		return bad("name is empty")
	case n > MaxNameChars:
		return bad("name is longer than 30 characters")
	case !utf8.ValidString(name):
		return bad("name is not valid UTF-8")
	case strings.HasPrefix(name, "_"):
		return bad("a leading '_' is reserved for system categories")
	case strings.HasPrefix(name, "-"):
		return bad("a name cannot start with '-'")
	}
	for _, r := range name {
		switch {
		case r == '+' || r == ',' || r == '/':
			return bad("'" + string(r) + "' is an expression separator and cannot be part of a name")
		case unicode.IsSpace(r):
			return bad("a name cannot contain whitespace")
		case unicode.IsControl(r) || !unicode.IsPrint(r):
			return bad("a name cannot contain control or invisible characters")
		}
	}
	return nil
}

// checkLoadedName applies the lenient rules to names read from a catalog file: the name must be
// usable in an expression (non-empty, no separators, no whitespace), but a leading "_" is fine.
func checkLoadedName(name string) string {
	if name == "" {
		return "name is empty"
	}
	for _, r := range name {
		if r == '+' || r == ',' || r == '/' || unicode.IsSpace(r) || unicode.IsControl(r) {
			return "name " + quote(name) + " cannot be used in an expression (no whitespace, '+', ',' or '/')"
		}
	}
	return ""
}
