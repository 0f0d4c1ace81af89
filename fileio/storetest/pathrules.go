package storetest

// PathRule is one rule of [fileio.ValidatePath] with paths that satisfy it and paths that
// break it (and nothing else). Every store's Service is checked against it, and fileio's own tests and
// fuzz seeds use it.
type PathRule struct {
	Rule    string
	Valid   []string
	Invalid []string
}

// PathRules is the table of path rules of [fileio.ValidatePath]; every Invalid path yields
// INVALID_PATH from every operation.
var PathRules = []PathRule{
	{Rule: "the empty path is the project root", Valid: []string{""}},
	{Rule: "length is at most 512 bytes",
		Valid:   []string{"/" + repeat("a", 511), "/" + repeat("abcdefg/", 63) + "abcdefg"},
		Invalid: []string{"/" + repeat("a", 512)}},
	{Rule: "the path starts with /", Valid: []string{"/a"}, Invalid: []string{"a", "a/b", "_/a", "./a"}},
	{Rule: "the path does not end with /", Valid: []string{"/a/b"}, Invalid: []string{"/", "/a/", "/a/b/"}},
	{Rule: "/ is the only separator", Valid: []string{"/a/b"}, Invalid: []string{`/a\b`, "/a:b", "/a|b"}},
	{Rule: "no empty segments", Valid: []string{"/a/b/c"}, Invalid: []string{"//a", "/a//b", "/a///b"}},
	{Rule: "no . or .. segments", Valid: []string{"/.a", "/a.", "/...", "/a/..b", "/.git/config"}, Invalid: []string{"/.", "/..", "/a/./b", "/a/../b", "/a/.."}},
	{Rule: "no ASCII control characters", Invalid: []string{"/a\x00b", "/a\nb", "/a\tb", "/\x7f", "/a\rb"}},
	{Rule: "only a-z A-Z 0-9 / _ - . and no whitespace",
		Valid:   []string{"/AZaz09_-.", "/notes/2024-01-01_todo.md"},
		Invalid: []string{"/a b", "/a\u00a0b", "/ä", "/日本", "/a*b", "/a?b", "/a~b", "/a+b", "/a%20b", "/a'b", "/\xff"}},
}

func repeat(s string, n int) string {
	out := make([]byte, 0, len(s)*n)
	for i := 0; i < n; i++ {
		out = append(out, s...)
	}
	return string(out)
}
