package adapterstest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/httpapi"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// camelCaseNames are the only wire names that are not snake_case: the documentation tools keep
// the argument and result names that MCP documentation servers use.
var camelCaseNames = []string{"fileId", "sourceDirectory"}

// forbiddenContinuations are spellings of "there is more" and "continue here" that the wire
// convention replaces (see package adapters, "Wire conventions"): a paged answer says
// truncated and next_cursor, taken back as cursor; a cut text says truncated and next_offset,
// taken back as offset.
var forbiddenContinuations = []string{
	"has_more", "more", "next_page", "next_page_token", "page_token", "next_token",
	"continuation", "continuation_token", "start_after", "next_start_after",
	"offset_bytes", "next_offset_bytes",
}

// ToolCall is one call of a tool with JSON arguments.
type ToolCall struct {
	Tool string
	Args string
}

// Options configure [TestToolSet].
type Options struct {
	// Codes are the codes the tool set's packages declare (their Codes functions). The codes of
	// package agentfiles and of package adapters are always registered.
	Codes []agentfiles.Code
	// Context is the context every call runs with, carrying the caller's identity for
	// tenant-scoped tools; nil means context.Background.
	Context context.Context
	// Calls must succeed. Each result must validate against its tool's output schema and
	// follow the paging convention; a truncated answer with a next_cursor is continued once
	// with it, and the same call with a cursor no tool returned must fail with a coded error.
	// Calls run in order, so earlier ones may create what later ones read.
	Calls []ToolCall
	// BadCalls must fail with a registered code other than INTERNAL. Every tool is also
	// called with an unknown argument and with arguments that are not an object.
	BadCalls []ToolCall
	// Describe names, per tool, texts that what the tool tells a model (its description and
	// its input schema's descriptions) must contain: the limits of the configuration the tool
	// set was built with, say "at most 7 edits".
	Describe map[string][]string
	// NotDescribe names, per tool, texts that it must not contain: the default limits, when
	// the tool set was built with other ones.
	NotDescribe map[string][]string
}

// TestToolSet checks that a tool set keeps the wire conventions every agentfiles tool keeps, in
// the spirit of testing/fstest: names, paging, errors, schemas and descriptions. It reports
// every violation with t.Errorf, naming the tool, and does not stop at the first:
//
//   - tool names, and every argument and result field name, are snake_case (or fileId or
//     sourceDirectory, the names MCP documentation servers use); tool names are unique;
//   - no field is another spelling of "there is more" (has_more, more, next_page,
//     next_page_token, page_token, next_token, continuation, continuation_token,
//     start_after, next_start_after, offset_bytes, next_offset_bytes); an object with next_cursor or
//     next_offset also has truncated; a tool that answers next_cursor takes cursor and the
//     reverse; in every answer of opts.Calls, next_cursor is set only when truncated is true;
//   - input and output schemas resolve, every answer of opts.Calls validates against its
//     tool's output schema, and the tool set is served alike by both bindings: an MCP client
//     session of the official Go SDK (package mcpsdk) and the HTTP JSON API (package httpapi)
//     list every tool with its description;
//   - calls with bad arguments fail with {code, message, retryable}, the code registered in
//     opts.Codes (or package agentfiles' or package adapters'), never INTERNAL, and
//     retryable as the code's kind says; each of opts.BadCalls fails with the same error over
//     MCP and over HTTP, with the HTTP status of the code's kind;
//   - descriptions contain opts.Describe and not opts.NotDescribe.
//
// Call it from the tests of every tool-set package and every server, with a tool set built
// from a configuration that differs from the defaults.
func TestToolSet(t testing.TB, tools []adapters.Tool, opts Options) {
	t.Helper()
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	codes := registeredCodes(opts.Codes)
	seen := map[string]bool{}
	for _, tool := range tools {
		if seen[tool.Name] {
			t.Errorf("%s: two tools have this name", tool.Name)
		}
		seen[tool.Name] = true
		if !snakeCase.MatchString(tool.Name) {
			t.Errorf("%s: tool name is not snake_case", tool.Name)
		}
		checkSchemas(t, tool)
		checkDescription(t, tool, opts.Describe[tool.Name], opts.NotDescribe[tool.Name])
		for _, args := range []string{`{"no_such_argument_of_any_tool": 1}`, `[1, 2]`} {
			_, err := tool.Call(ctx, json.RawMessage(args))
			checkCodedError(t, tool.Name, args, err, codes)
		}
	}
	for name, texts := range opts.Describe {
		if !seen[name] && len(texts) > 0 {
			t.Errorf("%s: Options.Describe names a tool the set does not have", name)
		}
	}
	b := newBindings(ctx, t, tools)
	for _, c := range opts.BadCalls {
		tool, ok := adapters.Find(tools, c.Tool)
		if !ok {
			t.Errorf("%s: Options.BadCalls names a tool the set does not have", c.Tool)
			continue
		}
		_, err := tool.Call(ctx, json.RawMessage(c.Args))
		checkCodedError(t, c.Tool, c.Args, err, codes)
		if err != nil {
			b.checkSameError(ctx, t, c, err)
		}
	}
	for _, c := range opts.Calls {
		checkCall(ctx, t, tools, c, codes)
	}
	b.checkList(ctx, t, tools)
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

func registeredCodes(own []agentfiles.Code) map[string]agentfiles.Code {
	codes := map[string]agentfiles.Code{}
	for _, list := range [][]agentfiles.Code{own, agentfiles.SharedCodes(), adapters.Codes()} {
		for _, c := range list {
			codes[c.String()] = c
		}
	}
	return codes
}

// checkSchemas checks the names and the paging fields of a tool's schemas, and that they resolve.
func checkSchemas(t testing.TB, tool adapters.Tool) {
	t.Helper()
	if tool.InputSchema == nil {
		t.Errorf("%s: no input schema", tool.Name)
		return
	}
	if tool.InputSchema.Type != "object" {
		t.Errorf("%s: input schema is of type %q, want object", tool.Name, tool.InputSchema.Type)
	}
	for _, s := range []*jsonschema.Schema{tool.InputSchema, tool.OutputSchema} {
		if s == nil {
			continue
		}
		if _, err := s.Resolve(nil); err != nil {
			t.Errorf("%s: schema does not resolve: %v", tool.Name, err)
		}
	}
	in := objectsOf(tool.InputSchema)
	out := objectsOf(tool.OutputSchema)
	for _, obj := range append(slices.Clone(in), out...) {
		for _, name := range sortedKeys(obj.Properties) {
			if !snakeCase.MatchString(name) && !slices.Contains(camelCaseNames, name) {
				t.Errorf("%s: field %q is not snake_case", tool.Name, name)
			}
			if slices.Contains(forbiddenContinuations, name) {
				t.Errorf("%s: field %q: say there is more with truncated and next_cursor (taken back as cursor), or next_offset (taken back as offset) for a cut text", tool.Name, name)
			}
		}
	}
	answersCursor, answersOffset := false, false
	for _, obj := range out {
		_, cursor := obj.Properties["next_cursor"]
		_, offset := obj.Properties["next_offset"]
		answersCursor = answersCursor || cursor
		answersOffset = answersOffset || offset
		if _, truncated := obj.Properties["truncated"]; (cursor || offset) && !truncated {
			t.Errorf("%s: an answer object has next_cursor or next_offset but no truncated beside it", tool.Name)
		}
	}
	takesCursor := tool.InputSchema.Properties["cursor"] != nil
	switch {
	case answersCursor && !takesCursor:
		t.Errorf("%s: answers next_cursor but takes no cursor argument", tool.Name)
	case takesCursor && !answersCursor && tool.OutputSchema != nil:
		t.Errorf("%s: takes a cursor but never answers next_cursor", tool.Name)
	}
	if answersOffset && tool.InputSchema.Properties["offset"] == nil {
		t.Errorf("%s: answers next_offset but takes no offset argument", tool.Name)
	}
}

// objectsOf returns s and every schema nested in it that has properties.
func objectsOf(s *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	var walk func(*jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil {
			return
		}
		if len(s.Properties) > 0 {
			out = append(out, s)
		}
		for _, k := range sortedKeys(s.Properties) {
			walk(s.Properties[k])
		}
		for _, k := range sortedKeys(s.Defs) {
			walk(s.Defs[k])
		}
		walk(s.Items)
		walk(s.AdditionalProperties)
		for _, list := range [][]*jsonschema.Schema{s.PrefixItems, s.AllOf, s.AnyOf, s.OneOf} {
			for _, x := range list {
				walk(x)
			}
		}
	}
	walk(s)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkDescription checks what the tool tells a model: its description and the descriptions in
// its input schema.
func checkDescription(t testing.TB, tool adapters.Tool, want, notWant []string) {
	t.Helper()
	if strings.TrimSpace(tool.Description) == "" {
		t.Errorf("%s: no description", tool.Name)
	}
	text := tool.Description
	for _, obj := range objectsOf(tool.InputSchema) {
		for _, k := range sortedKeys(obj.Properties) {
			text += "\n" + obj.Properties[k].Description
		}
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s: description does not say %q (the configured limit)", tool.Name, w)
		}
	}
	for _, w := range notWant {
		if strings.Contains(text, w) {
			t.Errorf("%s: description says %q, which is not the configured limit", tool.Name, w)
		}
	}
}

// checkCodedError checks that a call failed with a registered code and the wire form
// {code, message, retryable}.
func checkCodedError(t testing.TB, tool, args string, err error, codes map[string]agentfiles.Code) {
	t.Helper()
	if err == nil {
		t.Errorf("%s %s: succeeded, want an error", tool, args)
		return
	}
	te, internal := adapters.ErrorOf(err)
	code, registered := codes[te.Code]
	switch {
	case internal || te.Code == agentfiles.CodeInternal.String():
		t.Errorf("%s %s: INTERNAL error for bad arguments: %v", tool, args, err)
	case !registered:
		t.Errorf("%s %s: code %q is not registered (add it to Options.Codes, from the package's Codes): %v", tool, args, te.Code, err)
	case te.Message == "":
		t.Errorf("%s %s: error %s has no message", tool, args, te.Code)
	case te.Retryable != code.Retryable():
		t.Errorf("%s %s: error %s says retryable=%v, its kind says %v", tool, args, te.Code, te.Retryable, code.Retryable())
	}
	b, mErr := json.Marshal(te)
	var wire map[string]any
	if mErr == nil {
		mErr = json.Unmarshal(b, &wire)
	}
	if mErr != nil {
		t.Errorf("%s %s: error does not encode: %v", tool, args, mErr)
		return
	}
	if diff := sortedKeys(wire); !slices.Equal(diff, []string{"code", "message", "retryable"}) {
		t.Errorf("%s %s: error fields %v, want [code message retryable]", tool, args, diff)
	}
}

// checkCall makes a call that must succeed and checks its answer; a truncated answer with a
// next_cursor is continued once, and a made-up cursor must fail with a coded error.
func checkCall(ctx context.Context, t testing.TB, tools []adapters.Tool, c ToolCall, codes map[string]agentfiles.Code) {
	t.Helper()
	tool, ok := adapters.Find(tools, c.Tool)
	if !ok {
		t.Errorf("%s: Options.Calls names a tool the set does not have", c.Tool)
		return
	}
	answer, ok := callOK(ctx, t, tool, c.Args)
	if !ok {
		return
	}
	cursor := nextCursor(answer)
	if tool.InputSchema.Properties["cursor"] == nil {
		return
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(c.Args), &args); err != nil || args == nil {
		t.Errorf("%s %s: Options.Calls arguments must be a JSON object", c.Tool, c.Args)
		return
	}
	if cursor != "" {
		args["cursor"] = cursor
		b, _ := json.Marshal(args)
		callOK(ctx, t, tool, string(b))
	}
	args["cursor"] = "not-a-cursor-any-tool-returned"
	b, _ := json.Marshal(args)
	_, err := tool.Call(ctx, b)
	checkCodedError(t, c.Tool, string(b), err, codes)
}

// callOK calls tool and checks its answer against the output schema and the paging convention.
func callOK(ctx context.Context, t testing.TB, tool adapters.Tool, args string) (any, bool) {
	t.Helper()
	out, err := tool.Call(ctx, json.RawMessage(args))
	if err != nil {
		t.Errorf("%s %s: %v", tool.Name, args, err)
		return nil, false
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Errorf("%s %s: answer does not encode: %v", tool.Name, args, err)
		return nil, false
	}
	var answer any
	if err := json.Unmarshal(b, &answer); err != nil {
		t.Errorf("%s %s: answer does not decode: %v", tool.Name, args, err)
		return nil, false
	}
	if tool.OutputSchema != nil {
		if resolved, err := tool.OutputSchema.Resolve(nil); err == nil {
			if err := resolved.Validate(answer); err != nil {
				t.Errorf("%s %s: answer does not match the output schema: %v", tool.Name, args, err)
			}
		}
	}
	walkObjects(answer, func(obj map[string]any) {
		t.Helper()
		if c, _ := obj["next_cursor"].(string); c != "" && obj["truncated"] != true {
			t.Errorf("%s %s: answer has next_cursor but truncated is not true", tool.Name, args)
		}
		for _, name := range sortedKeys(obj) {
			if slices.Contains(forbiddenContinuations, name) {
				t.Errorf("%s %s: answer has field %q", tool.Name, args, name)
			}
		}
	})
	return answer, true
}

// nextCursor returns the top-level next_cursor of an answer, if any.
func nextCursor(answer any) string {
	obj, _ := answer.(map[string]any)
	c, _ := obj["next_cursor"].(string)
	return c
}

func walkObjects(v any, fn func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		fn(v)
		for _, k := range sortedKeys(v) {
			walkObjects(v[k], fn)
		}
	case []any:
		for _, x := range v {
			walkObjects(x, fn)
		}
	}
}

// bindings serve the tool set the way agents reach it: an MCP client session of the official
// Go SDK, and the HTTP JSON API, both with the caller identity of the suite's context.
type bindings struct {
	mcp  *mcp.ClientSession
	http string // the base URL of the HTTP JSON API
}

func newBindings(ctx context.Context, t testing.TB, tools []adapters.Tool) *bindings {
	t.Helper()
	var auth *agentfiles.AuthContext
	if ac, ok := agentfiles.AuthFromContext(ctx); ok {
		auth = &ac
	}
	b := &bindings{}
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("the MCP Go SDK refuses the tool set: %v", r)
			}
		}()
		b.mcp = Connect(t, tools, mcpsdk.Options{Auth: auth})
	}()
	srv := httptest.NewServer(httpapi.NewHandler(tools, httpapi.Options{Authenticator: func(*http.Request) (agentfiles.AuthContext, error) {
		if auth == nil {
			return agentfiles.AuthContext{}, nil
		}
		return *auth, nil
	}}))
	t.Cleanup(srv.Close)
	b.http = srv.URL
	return b
}

// checkList lists the tools over MCP and over HTTP: every binding shows every tool, with the
// same description.
func (b *bindings) checkList(ctx context.Context, t testing.TB, tools []adapters.Tool) {
	t.Helper()
	want := map[string]string{}
	for _, tool := range tools {
		want[tool.Name] = tool.Description
	}
	if b.mcp != nil {
		got := map[string]string{}
		for tool, err := range b.mcp.Tools(ctx, nil) {
			if err != nil {
				t.Errorf("listing the tools over MCP: %v", err)
				break
			}
			got[tool.Name] = tool.Description
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tools over MCP (-want +got):\n%s", diff)
		}
	}
	var list struct {
		Tools []httpapi.ToolInfo `json:"tools"`
	}
	if err := b.getJSON(ctx, "/tools", &list); err != nil {
		t.Errorf("GET /tools: %v", err)
		return
	}
	got := map[string]string{}
	for _, tool := range list.Tools {
		got[tool.Name] = tool.Description
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools over HTTP (-want +got):\n%s", diff)
	}
}

// checkSameError makes a failing call over MCP and over HTTP and expects the error the handler
// returned directly: the same {code, message, retryable}, and over HTTP the status of its kind.
func (b *bindings) checkSameError(ctx context.Context, t testing.TB, c ToolCall, direct error) {
	t.Helper()
	want, _ := adapters.ErrorOf(direct)
	if b.mcp != nil {
		res, err := b.mcp.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: json.RawMessage(c.Args)})
		var got adapters.ToolError
		switch {
		case err != nil:
			t.Errorf("%s %s over MCP: %v", c.Tool, c.Args, err)
		case !res.IsError:
			t.Errorf("%s %s over MCP: succeeded, want %s", c.Tool, c.Args, want.Code)
		case len(res.Content) != 1 || json.Unmarshal([]byte(textOf(res.Content[0])), &got) != nil:
			t.Errorf("%s %s over MCP: the error's text is not {code, message, retryable}", c.Tool, c.Args)
		default:
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(adapters.ToolError{}, "Kind")); diff != "" {
				t.Errorf("%s %s: error over MCP differs from the handler's (-handler +MCP):\n%s", c.Tool, c.Args, diff)
			}
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.http+"/tools/"+c.Tool, strings.NewReader(c.Args))
	if err != nil {
		t.Errorf("%s: %v", c.Tool, err)
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("%s %s over HTTP: %v", c.Tool, c.Args, err)
		return
	}
	defer resp.Body.Close()
	var body struct {
		Error adapters.ToolError `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body); err != nil {
		t.Errorf("%s %s over HTTP: answer is not JSON: %v", c.Tool, c.Args, err)
		return
	}
	if status := adapters.HTTPStatus(want.Kind); resp.StatusCode != status {
		t.Errorf("%s %s over HTTP: status %d, want %d for %s", c.Tool, c.Args, resp.StatusCode, status, want.Code)
	}
	if diff := cmp.Diff(want, body.Error, cmpopts.IgnoreFields(adapters.ToolError{}, "Kind")); diff != "" {
		t.Errorf("%s %s: error over HTTP differs from the handler's (-handler +HTTP):\n%s", c.Tool, c.Args, diff)
	}
}

func (b *bindings) getJSON(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.http+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(v)
}

// textOf returns the text of a text content, "" for another kind.
func textOf(c mcp.Content) string {
	if tc, ok := c.(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}
