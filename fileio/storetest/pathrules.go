package storetest

// PathRule is one rule of [fileio.ValidatePath] with paths that satisfy it and paths that
// break it (and nothing else). Every store's Service is checked against it, and fileio's own tests and
// fuzz seeds use it.
type PathRule struct {
	Rule    string
	Valid   []string
	Invalid []string
}

// PathRules is the table of path rules of [fileio.ValidatePath] (the default rule,
// [fileio.PathRuleUnicode]); every Invalid path yields INVALID_PATH from every operation, except
// a path that is only not in NFC, which every operation normalizes first.
var PathRules = []PathRule{
	{Rule: "the empty path is the project root", Valid: []string{""}},
	{Rule: "length is at most 512 bytes",
		Valid:   []string{"/" + repeat("a", 511), "/" + repeat("abcdefg/", 63) + "abcdefg"},
		Invalid: []string{"/" + repeat("a", 512)}},
	{Rule: "the path starts with /", Valid: []string{"/a"}, Invalid: []string{"a", "a/b", "_/a", "./a"}},
	{Rule: "the path does not end with /", Valid: []string{"/a/b"}, Invalid: []string{"/", "/a/", "/a/b/"}},
	{Rule: "/ is the only separator", Valid: []string{"/a/b"}, Invalid: []string{`/a\b`, `\a`}},
	{Rule: "no empty segments", Valid: []string{"/a/b/c"}, Invalid: []string{"//a", "/a//b", "/a///b"}},
	{Rule: "no . or .. segments", Valid: []string{"/.a", "/a.", "/...", "/a/..b", "/.git/config"}, Invalid: []string{"/.", "/..", "/a/./b", "/a/../b", "/a/.."}},
	{Rule: "no control characters", Invalid: []string{"/a\x00b", "/a\nb", "/a\tb", "/\x7f", "/a\rb", "/a\u0085b", "/a\u2028b"}},
	{Rule: "no invisible formatting characters", Invalid: []string{"/a\u200bb", "/abc\u202egpj.exe", "/\ufeffa", "/a\u2060"}},
	{Rule: "valid UTF-8 in normalization form C", Valid: []string{"/caf\u00e9.md", "/\ufffd"},
		Invalid: []string{"/\xff", "/a\xc3"}},
	{Rule: "any other UTF-8 text, spaces and punctuation included",
		Valid: []string{"/AZaz09_-.", "/notes/meeting notes.md", "/notes/caf\u00e9.md", "/\u65e5\u672c/\u8a9e.txt", "/a\u00a0b",
			"/a b/ c ", "/100% & (draft) [v2]; a=b, c+d 'e' #f ~g $h*?.md", "/a:b", "/a|b"}},
}

// PortablePathRules is the character rule of [fileio.PathRulePortable], which replaces the
// character rules of PathRules under it: only a-z A-Z 0-9 / _ - . are allowed.
var PortablePathRules = []PathRule{
	{Rule: "only a-z A-Z 0-9 / _ - . and no whitespace",
		Valid:   []string{"/AZaz09_-.", "/notes/2024-01-01_todo.md"},
		Invalid: []string{"/a b", "/a\u00a0b", "/\u00e4", "/\u65e5\u672c", "/a*b", "/a?b", "/a~b", "/a+b", "/a%20b", "/a'b", "/\xff", "/a:b"}},
}

func repeat(s string, n int) string {
	out := make([]byte, 0, len(s)*n)
	for i := 0; i < n; i++ {
		out = append(out, s...)
	}
	return string(out)
}
