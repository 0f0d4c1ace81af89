package consult

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
)

// DefaultSystemPrompt is the instruction sent with every consultation unless Request.System is
// set.
const DefaultSystemPrompt = "You are an expert reviewer answering a question about the files provided. " +
	"Base the answer on the file contents; cite files by their path; say so when the files do not contain the answer."

// Default and hard caps on a consultation's duration.
const (
	DefaultTimeout = 10 * time.Minute
	HardMaxTimeout = 60 * time.Minute
)

// Request is one consultation: which files, what to ask, which model.
type Request struct {
	Files []string // files-list entries, see [Expand]
	Query string   // the question about the files
	Model Model
	// System replaces DefaultSystemPrompt when not empty.
	System string
	// ReasoningEffort overrides the model's default ("low", "medium", "high").
	ReasoningEffort string
	// MaxOutputTokens caps the answer and is reserved in the context-window check; 0 reserves
	// min(4096, window/4) and leaves the provider's cap.
	MaxOutputTokens Tokens
	// Timeout bounds the model call; 0 means DefaultTimeout, values above HardMaxTimeout are
	// clamped. When it expires mid-answer, the partial answer is returned marked Truncated.
	Timeout time.Duration
	// OutputFile, when set, is an absolute path that receives the answer. An existing file is
	// never overwritten: the answer goes to name_updated.ext (then name_updated_2.ext, ...).
	OutputFile string
}

// Response is the outcome of a consultation.
type Response struct {
	Answer       string
	Model        string // the model that answered
	Truncated    bool   // the answer is incomplete; Note says why
	FinishReason string
	Note         string // why the answer is truncated, or what was adjusted (clamped timeout)
	Usage        Usage  // as reported by the provider
	OutputFile   string // the file written, when Request.OutputFile was set
	Files        []IncludedFile
	Errors       []EntryError // entries and files that were not included
	PromptTokens Tokens       // the prompt's size as counted before sending
	Estimated    bool         // PromptTokens is an estimate (EstimateCounter)
}

// Prepared is an assembled consultation, ready to send; [Consultant.Prepare] returns it so that
// a dry run can show exactly what would be sent.
type Prepared struct {
	Bundle         *Bundle
	System         string
	User           string // the bundle text followed by the query
	PromptTokens   Tokens // System + User as counted by the consultant's TokenCounter; the count User's header states
	ReservedTokens Tokens // kept free for the answer in the context-window check
	ContextWindow  Tokens // the model's window; 0 when unknown
}

// ConsultantOptions configure a [Consultant]. The zero value is usable: every zero field means
// its documented default.
type ConsultantOptions struct {
	// Expander expands files lists; nil means one with the default options (see [NewExpander]),
	// which has no roots and reads any file the process can. When the files list comes from an
	// agent, give an Expander with [ExpanderOptions.Roots].
	// Share one Expander between Consultants to share its cache of compiled entries.
	Expander *Expander
	// Limits caps each file and the total of a prompt; zero fields mean the defaults.
	Limits Limits
	// Counter counts tokens; nil means [EstimateCounter].
	Counter TokenCounter
	// Models are the models offered by name (for tools); the first is the default.
	Models []Model
	// AllowOutputFiles enables Request.OutputFile; when false such requests fail with
	// INVALID_ARGUMENT.
	AllowOutputFiles bool
	// Logger receives one record per model call (model, file count, tokens, duration); never
	// file contents or keys. Nil discards.
	Logger *slog.Logger
}

// Consultant runs consultations with a fixed configuration. Build one with [NewConsultant]; it
// is safe for concurrent use.
type Consultant struct {
	expander         *Expander
	formatter        *Formatter
	counter          TokenCounter
	models           []Model
	allowOutputFiles bool
	log              *slog.Logger
}

// NewConsultant returns a Consultant configured by opts.
func NewConsultant(opts ConsultantOptions) *Consultant {
	c := &Consultant{
		expander:         opts.Expander,
		formatter:        NewFormatter(FormatterOptions{Limits: opts.Limits, Counter: opts.Counter}),
		models:           slices.Clone(opts.Models),
		allowOutputFiles: opts.AllowOutputFiles,
		log:              opts.Logger,
	}
	c.counter = c.formatter.counter
	if c.expander == nil {
		c.expander = defaultExpander
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c
}

// defaultConsultant serves the package-level [Consult].
var defaultConsultant = NewConsultant(ConsultantOptions{AllowOutputFiles: true})

// Consult runs one consultation with default options and output files allowed; see
// [Consultant.Consult].
func Consult(ctx context.Context, req Request) (*Response, error) {
	return defaultConsultant.Consult(ctx, req)
}

// Models returns the models offered by name, the default first.
func (c *Consultant) Models() []Model { return slices.Clone(c.models) }

// Model returns the configured model with the given name, or the default (first) one for "".
func (c *Consultant) Model(name string) (Model, error) {
	if len(c.models) == 0 {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "no models are configured for consultations", name)
	}
	if name == "" {
		return c.models[0], nil
	}
	var names []string
	for _, m := range c.models {
		if m.Name() == name {
			return m, nil
		}
		names = append(names, m.Name())
	}
	return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "unknown model; use one of: "+strings.Join(names, ", "), name)
}

// Prepare validates the request, expands and formats the files, and checks the prompt against
// the model's context window (CONTEXT_TOO_LARGE, with the numbers and the largest files). It
// does not call the model.
func (c *Consultant) Prepare(ctx context.Context, req Request) (*Prepared, error) {
	if strings.TrimSpace(req.Query) == "" {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "query is empty; ask a question about the files", "query")
	}
	if len(req.Files) == 0 {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "files is empty; list absolute paths or patterns such as /home/me/project/src/*.py", "files")
	}
	if req.Model == nil {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "no model given", "model")
	}
	files, errs, err := c.expander.ExpandContext(ctx, req.Files)
	if err != nil {
		return nil, err
	}
	system := req.System
	if system == "" {
		system = DefaultSystemPrompt
	}
	query := "\n# Query\n\n" + req.Query + "\n"
	// The bundle's header states the size of the whole prompt: one count, the same as PromptTokens.
	b, err := c.formatter.format(ctx, files, errs, c.counter.CountTokens(system)+c.counter.CountTokens(query))
	if err != nil {
		return nil, err
	}
	if len(b.Files) == 0 {
		return nil, noFilesError(b.Errors)
	}
	p := &Prepared{Bundle: b, System: system, ContextWindow: req.Model.ContextWindow()}
	p.User = b.Text + query
	p.PromptTokens = b.PromptTokens
	p.ReservedTokens = req.MaxOutputTokens
	if p.ReservedTokens <= 0 {
		p.ReservedTokens = min(4096, p.ContextWindow/4)
	}
	if p.ContextWindow > 0 && p.PromptTokens+p.ReservedTokens > p.ContextWindow {
		return nil, contextTooLarge(p, req.Model.Name())
	}
	return p, nil
}

func noFilesError(errs []EntryError) *agentfiles.Error {
	msg := "no file could be included, so nothing was sent to the model"
	for i, e := range errs {
		if i == 5 {
			msg += "; …"
			break
		}
		msg += "; " + e.Error()
	}
	return agentfiles.NewError(agentfiles.CodeNotFound, msg, "files")
}

func contextTooLarge(p *Prepared, model string) *agentfiles.Error {
	est := ""
	if p.Bundle.Estimated {
		est = " (estimated)"
	}
	msg := "the prompt has " + formatInt(int64(p.PromptTokens)) + " tokens" + est + " plus " +
		formatInt(int64(p.ReservedTokens)) + " reserved for the answer, over the context window of " +
		formatInt(int64(p.ContextWindow)) + " tokens of " + model + "; nothing was sent. Consult fewer files"
	largest := slices.Clone(p.Bundle.Files)
	slices.SortFunc(largest, func(a, b IncludedFile) int { return int(b.Tokens - a.Tokens) })
	if len(largest) > 3 {
		largest = largest[:3]
	}
	for i, f := range largest {
		if i == 0 {
			msg += "; the largest are "
		} else {
			msg += ", "
		}
		msg += f.Path + " (" + formatInt(int64(f.Tokens)) + " tokens)"
	}
	return agentfiles.NewError(CodeContextTooLarge, msg, model)
}

// Consult prepares the request (see [Consultant.Prepare]), sends it to the model, and writes the
// answer to Request.OutputFile when one is given. When the timeout expires after part of the
// answer has arrived, the partial answer is returned with Truncated set and a nil error; with
// nothing received it fails with TIMEOUT.
func (c *Consultant) Consult(ctx context.Context, req Request) (*Response, error) {
	if req.OutputFile != "" && !c.allowOutputFiles {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "output files are disabled on this server; omit output_file", req.OutputFile)
	}
	if req.OutputFile != "" {
		if err := c.expander.checkOutputFile(req.OutputFile); err != nil {
			return nil, err
		}
	}
	p, err := c.Prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	timeout, note := req.Timeout, ""
	switch {
	case timeout <= 0:
		timeout = DefaultTimeout
	case timeout > HardMaxTimeout:
		timeout, note = HardMaxTimeout, "the timeout was clamped to "+HardMaxTimeout.String()
	}
	errTimedOut := agentfiles.NewError(agentfiles.CodeTimeout, "the model did not finish within "+timeout.String()+
		"; ask a narrower question, consult fewer files, or allow more time", req.Model.Name())
	mctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimedOut)
	defer cancel()
	start := time.Now()
	comp, err := req.Model.Complete(mctx, Prompt{
		System: p.System, User: p.User, ReasoningEffort: req.ReasoningEffort, MaxOutputTokens: req.MaxOutputTokens,
	})
	c.log.InfoContext(ctx, "consult: model call", "model", req.Model.Name(), "files", len(p.Bundle.Files),
		"prompt_tokens", int64(p.PromptTokens), "duration", time.Since(start), "ok", err == nil)
	timedOut := err != nil && errors.Is(context.Cause(mctx), errTimedOut) && ctx.Err() == nil
	switch {
	case timedOut && comp != nil && comp.Text != "":
		note = joinNote(note, "the model did not finish within "+timeout.String()+"; the answer is partial")
		comp.Truncated = true
	case timedOut:
		return nil, errTimedOut
	case err != nil:
		var ce *agentfiles.Error
		if errors.As(err, &ce) {
			return nil, err
		}
		if cerr := agentfiles.ContextError(ctx.Err()); cerr != nil {
			return nil, cerr
		}
		return nil, agentfiles.WrapError(CodeModelError, "the model call failed", req.Model.Name(), err)
	}
	resp := &Response{
		Answer: comp.Text, Model: comp.Model, Truncated: comp.Truncated, FinishReason: comp.FinishReason,
		Usage: comp.Usage, Files: p.Bundle.Files, Errors: p.Bundle.Errors,
		PromptTokens: p.PromptTokens, Estimated: p.Bundle.Estimated, Note: note,
	}
	if resp.Model == "" {
		resp.Model = req.Model.Name()
	}
	if comp.FinishReason == "length" {
		resp.Note = joinNote(resp.Note, "the answer hit the output token limit; raise MaxOutputTokens or ask for less")
	}
	if req.OutputFile != "" {
		out, err := writeOutput(req.OutputFile, comp.Text)
		if err != nil {
			return resp, err
		}
		resp.OutputFile = out
	}
	return resp, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
