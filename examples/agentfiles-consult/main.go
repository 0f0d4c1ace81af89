// Command agentfiles-consult asks a language model a question about local files, using the
// OpenAI-compatible chat-completions protocol.
//
//	OPENAI_API_KEY=sk-... go run ./examples/agentfiles-consult -root /path/to/project -file '/path/to/project/*.go' -query 'What does this do?'
//	go run ./examples/agentfiles-consult -dry-run -root /path/to/project -file '/path/to/project/*.go' -query 'What does this do?'
//
// Only files inside a -root directory (repeatable) are sent, symbolic links resolved.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/consult/openai"
	"github.com/agentfiles/agentfiles/examples/internal/mcpcmd"
)

type listFlag []string

func (l *listFlag) String() string     { return fmt.Sprint(*l) }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	var files, roots listFlag
	flag.Var(&files, "file", "absolute file path or `pattern` such as /dir/*.py (repeatable)")
	flag.Var(&roots, "root", "`directory` whose files may be sent to the model (repeatable; required): files outside every -root, or leading out through a symbolic link, are refused")
	query := flag.String("query", "", "the question about the files")
	model := flag.String("model", "gpt-4.1-mini", "model name at the provider")
	baseURL := flag.String("base-url", openai.DefaultBaseURL, "API root, e.g. https://openrouter.ai/api/v1 or http://localhost:11434/v1")
	keyEnv := flag.String("api-key-env", "OPENAI_API_KEY", "environment variable holding the API key")
	window := flag.Int64("context-window", 128000, "the model's context window in tokens (checked before sending; 0 disables)")
	effort := flag.String("reasoning-effort", "", "reasoning effort for reasoning models: low, medium or high")
	timeout := flag.Duration("timeout", 5*time.Minute, "how long to wait for the answer; a partial answer is printed on expiry")
	output := flag.String("output", "", "write the answer to this absolute path (never overwrites: name_updated.ext)")
	dryRun := flag.Bool("dry-run", false, "print the assembled prompt and the expansion report; do not call the model")
	logLevel := flag.String("log-level", "off", "debug, info, warn, error or off; logs go to stderr")
	version := flag.Bool("version", false, "print the version and exit")
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), "agentfiles-consult: asks a language model a question about local files, over the\n"+
			"OpenAI-compatible chat-completions protocol; only files inside a -root are sent.\n\n"+
			"Usage: agentfiles-consult -root DIR -file PATTERN [-file ...] -query QUESTION [flags]\n\nFlags:\n")
		flag.PrintDefaults()
	}
	// A mistake is one short line pointing at -h; the flag package would print the whole usage.
	flag.CommandLine.Init("agentfiles-consult", flag.ContinueOnError)
	flag.CommandLine.SetOutput(io.Discard)
	err := flag.CommandLine.Parse(os.Args[1:])
	flag.CommandLine.SetOutput(os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		flag.Usage()
		return
	case err != nil:
		fmt.Fprintf(os.Stderr, "agentfiles-consult: %v (see -h)\n", err)
		os.Exit(2)
	}
	if *version {
		fmt.Println("agentfiles-consult", mcpcmd.Version())
		return
	}
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "agentfiles-consult: unexpected argument %q; all options are flags (see -h)\n", flag.Arg(0))
		os.Exit(2)
	}
	if len(files) == 0 || *query == "" {
		fmt.Fprintln(os.Stderr, "agentfiles-consult: needs -file (repeatable) and -query, e.g. -root /path/to/project -file '/path/to/project/*.go' -query 'What does this do?' (see -h)")
		os.Exit(2)
	}
	level, err := mcpcmd.ParseLogLevel(*logLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agentfiles-consult:", err)
		os.Exit(2)
	}
	if len(roots) == 0 {
		fmt.Fprintln(os.Stderr, "agentfiles-consult: no -root given: name the directories whose files may be sent to the model, e.g. -root /path/to/project (repeatable); files outside them are refused")
		os.Exit(2)
	}
	rootDirs := make([]string, len(roots))
	for i, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			fail(fmt.Errorf("-root %s: %w", r, err))
		}
		rootDirs[i] = abs
	}
	x, err := consult.NewExpander(consult.ExpanderOptions{Roots: rootDirs})
	if err != nil {
		var ce *agentfiles.Error
		if errors.As(err, &ce) {
			fmt.Fprintf(os.Stderr, "agentfiles-consult: -root %s: %s\n", ce.Arg, ce.Message)
			os.Exit(2)
		}
		fail(err)
	}
	var logger *slog.Logger
	if level < mcpcmd.LevelOff {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	}
	apiKey := os.Getenv(*keyEnv)
	m, err := openai.New(*model, openai.Options{
		BaseURL: *baseURL, APIKey: apiKey, ContextWindow: consult.Tokens(*window), Logger: logger,
	})
	if err != nil {
		fail(err)
	}
	c := consult.NewConsultant(consult.ConsultantOptions{Expander: x, AllowOutputFiles: true, Logger: logger})
	req := consult.Request{Files: files, Query: *query, Model: m, ReasoningEffort: *effort, Timeout: *timeout, OutputFile: *output}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	if *dryRun {
		p, err := c.Prepare(ctx, req)
		if err != nil {
			fail(err)
		}
		fmt.Printf("=== system ===\n%s\n\n=== user ===\n%s\n", p.System, p.User)
		// The same count as the prompt's header: the whole prompt, system prompt and query included.
		fmt.Fprintf(os.Stderr, "%d files, %s bytes; the prompt has %s tokens%s; %s reserved for the answer, context window %s; %d problems\n",
			len(p.Bundle.Files), thousands(p.Bundle.TotalBytes), thousands(int64(p.PromptTokens)), estimated(p.Bundle.Estimated),
			thousands(int64(p.ReservedTokens)), thousands(int64(p.ContextWindow)), len(p.Bundle.Errors))
		for _, e := range p.Bundle.Errors {
			fmt.Fprintln(os.Stderr, "  ", e.Error())
		}
		return
	}
	if apiKey == "" {
		fmt.Fprintf(os.Stderr, "warning: $%s is empty; sending no API key\n", *keyEnv)
	}
	resp, err := c.Consult(ctx, req)
	if resp != nil {
		if resp.OutputFile != "" {
			fmt.Fprintln(os.Stderr, "answer written to", resp.OutputFile)
		} else {
			fmt.Println(resp.Answer)
		}
		for _, e := range resp.Errors {
			fmt.Fprintln(os.Stderr, "not included:", e.Error())
		}
		if resp.Note != "" {
			fmt.Fprintln(os.Stderr, "note:", resp.Note)
		}
		fmt.Fprintf(os.Stderr, "model %s, %d files, usage: prompt %d, completion %d tokens\n",
			resp.Model, len(resp.Files), resp.Usage.PromptTokens, resp.Usage.CompletionTokens)
	}
	if err != nil {
		fail(err)
	}
}

func estimated(e bool) string {
	if e {
		return " (estimated)"
	}
	return ""
}

// thousands writes n with thousands separators, as the prompt's header does: 59304 -> "59,304".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func fail(err error) {
	var ce *agentfiles.Error
	if errors.As(err, &ce) {
		fmt.Fprintf(os.Stderr, "%s: %s\n", ce.Code, ce.Message)
	} else {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(1)
}
