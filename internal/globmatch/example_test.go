package globmatch_test

import (
	"fmt"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/globmatch"
)

func ExampleCompile() {
	g, err := globmatch.Compile("src/**/*_test.go")
	if err != nil {
		panic(err)
	}
	for _, p := range []string{"src/a_test.go", "src/x/y/b_test.go", "src/a.go", "lib/c_test.go"} {
		fmt.Println(p, g.Match(p))
	}
	_, err = globmatch.Compile("[a")
	fmt.Println(agentfiles.ErrorCode(err))
	// Output:
	// src/a_test.go true
	// src/x/y/b_test.go true
	// src/a.go false
	// lib/c_test.go false
	// INVALID_PATTERN
}
