package consult_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/consult/openai"
)

func ExampleExpand() {
	dir, _ := os.MkdirTemp("", "consult-example")
	defer os.RemoveAll(dir)
	for _, name := range []string{"app.py", "util.py", ".hidden.py", "app_test.py", "notes.txt", ".env"} {
		os.WriteFile(filepath.Join(dir, name), []byte("x\n"), 0o644)
	}
	files, errs := consult.Expand([]string{
		dir + "/*.py",      // hidden files are not matched by a leading *
		dir + "/*_test.py", // duplicates are collapsed
		dir + "/*",         // no extension
		"notes.txt",        // not absolute
		dir + "/.env",      // on the ignore list
	})
	for _, f := range files {
		fmt.Println(strings.TrimPrefix(f, dir))
	}
	for _, e := range errs {
		fmt.Println(strings.TrimPrefix(e.Entry, dir), e.Err.Code)
	}
	// Output:
	// /app.py
	// /app_test.py
	// /util.py
	// /* MISSING_EXTENSION
	// notes.txt NOT_ABSOLUTE
	// /.env IGNORED
}

func ExampleConsultant_Prepare() {
	dir, _ := os.MkdirTemp("", "consult-example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)

	c := consult.NewConsultant(consult.ConsultantOptions{})
	model, err := openai.New("gpt-4.1", openai.Options{ContextWindow: 1_000_000})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := c.Prepare(context.Background(), consult.Request{
		Files: []string{dir + "/*.go"}, Query: "What does main do?", Model: model,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The header states one count, the whole prompt's: "1 file, 13 bytes; the prompt has 109 tokens
	// (estimated)." (the number depends on the temporary directory's name).
	header := strings.SplitN(p.User, "\n", 4)[2]
	fmt.Println(strings.SplitN(header, ";", 2)[0])
	fmt.Println("the header states PromptTokens:", strings.Contains(header, fmt.Sprintf(" %d tokens (estimated).", p.PromptTokens)))
	fmt.Println(len(p.Bundle.Files), "file, fits:", p.PromptTokens+p.ReservedTokens <= p.ContextWindow)
	// Output:
	// 1 file, 13 bytes
	// the header states PromptTokens: true
	// 1 file, fits: true
}
