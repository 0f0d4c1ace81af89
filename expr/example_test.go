package expr_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentfiles/agentfiles/expr"
)

func ExampleParse() {
	e, err := expr.Parse("lang/python+java, docs/api, guidelines")
	if err != nil {
		panic(err)
	}
	for _, t := range e.Terms {
		fmt.Println(t.Name, t.Patterns)
	}
	fmt.Println(e)
	// Output:
	// lang [python java]
	// docs [api]
	// guidelines []
	// lang/python+java,docs/api,guidelines
}

func ExampleParse_error() {
	_, err := expr.Parse("lang/python+,docs")
	fmt.Println(errors.Is(err, expr.ErrParseError))
	fmt.Println(err)
	var se *expr.SyntaxError
	if errors.As(err, &se) {
		fmt.Println("at byte", se.Pos, "suggestion:", se.Suggestion)
	}
	// Output:
	// true
	// PARSE_ERROR: trailing '+' with no pattern after it at byte 11 of the expression ("+"); suggestion: lang/python,docs
	// at byte 11 suggestion: lang/python,docs
}

func ExampleCatalog_Resolve() {
	cat, err := expr.Load("testdata/seed/catalog.yaml", expr.Options{})
	if err != nil {
		panic(err)
	}
	e, _ := expr.Parse("mixed-example,lang/go")
	res, err := cat.Resolve(context.Background(), e, expr.ResolveOptions{})
	if err != nil {
		panic(err)
	}
	for _, p := range res.Patterns {
		fmt.Printf("%s/%s (%s)\n", p.Category, p.Pattern, p.Source)
	}
	for _, d := range res.Documents {
		fmt.Println(d.Category, d.Path)
	}
	// Output:
	// api-reference/*.md (category)
	// user-guides/getting-started*.md (collection)
	// tutorials/*.md (category)
	// lang/go (call)
	// api-reference endpoints.md
	// user-guides getting-started-advanced.md
	// user-guides getting-started.md
	// tutorials first-steps.md
	// lang go.md
}

func ExampleCatalog_Content() {
	cat, err := expr.Load("testdata/seed/catalog.yaml", expr.Options{})
	if err != nil {
		panic(err)
	}
	out, err := cat.Content(context.Background(), "lang/python+java", expr.ContentOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Print(out.Content)
	out, _ = cat.Content(context.Background(), "lang/cobol", expr.ContentOptions{})
	fmt.Printf("%q\n", out.Content)
	// Output:
	// ==> lang/python.md <==
	// # Python
	//
	// ==> lang/java.md <==
	// # Java
	// ""
}

func ExampleCatalog_AddCollection() {
	cat, err := expr.New([]byte("categories:\n  lang: {dir: testdata/seed/lang}\n"), ".", expr.Options{})
	if err != nil {
		panic(err)
	}
	err = cat.AddCollection(context.Background(), expr.Collection{
		Name:       "backend",
		Categories: []expr.Term{{Name: "lang", Patterns: []string{"go.md", "java.md"}}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Print(string(cat.Bytes()))
	// Output:
	// categories:
	//   lang: {dir: testdata/seed/lang}
	// collections:
	//   backend:
	//     categories:
	//       - lang: ["go.md", "java.md"]
}
