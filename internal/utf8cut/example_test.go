package utf8cut_test

import (
	"fmt"

	"github.com/agentfiles/agentfiles/internal/utf8cut"
)

// Cut never splits a character: € is three bytes, so a budget of 2 to 3 bytes keeps only the
// "a" before it.
func ExampleCut() {
	for _, n := range []int{-1, 0, 1, 2, 3, 4, 5, 6} {
		prefix, cut := utf8cut.Cut("a€b", n)
		fmt.Printf("%d: %q %v\n", n, prefix, cut)
	}
	// Output:
	// -1: "" true
	// 0: "" true
	// 1: "a" true
	// 2: "a" true
	// 3: "a" true
	// 4: "a€" true
	// 5: "a€b" false
	// 6: "a€b" false
}

func ExampleShorten() {
	fmt.Println(utf8cut.Shorten("short", 5, "…"))
	fmt.Println(utf8cut.Shorten("héllo", 2, "..."))
	fmt.Println(utf8cut.Shorten("", 0, "…"))
	// Output:
	// short
	// h...
	//
}
