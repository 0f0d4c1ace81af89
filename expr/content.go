package expr

import (
	"context"
	"strconv"
	"strings"
)

// ContentOptions combine the options of [Catalog.Content]; the zero value means the defaults.
type ContentOptions struct {
	Resolve ResolveOptions
	Render  RenderOptions
}

// Content parses an expression, resolves it and renders the documents: the one call behind
// the get_content tool. Nothing matching is a success with empty Content and an advisory
// Message; errors are PARSE_ERROR, UNKNOWN_NAME, CYCLE, INVALID_PATTERN, TEMPLATE_ERROR,
// INVALID_ARGUMENT (an unknown format), TIMEOUT, CANCELED or INTERNAL.
func (c *Catalog) Content(ctx context.Context, expression string, o ContentOptions) (*Rendered, error) {
	e, err := Parse(expression)
	if err != nil {
		return nil, err
	}
	res, err := c.Resolve(ctx, e, o.Resolve)
	if err != nil {
		return nil, err
	}
	out, err := Render(ctx, res.Documents, o.Render)
	if err != nil {
		return nil, err
	}
	out.Resolution = res
	out.Truncated = out.Truncated || res.Truncated
	var msgs []string
	if len(res.Documents) == 0 {
		msgs = append(msgs, nothingMatched(res))
	}
	msgs = append(msgs, res.Notes...)
	if len(res.Documents) > 0 && out.Message != "" {
		msgs = append(msgs, out.Message)
	}
	out.Message = strings.Join(msgs, " ")
	return out, nil
}

// nothingMatched explains an empty result: which patterns were tried where.
func nothingMatched(res *Resolution) string {
	var tried []string
	for _, p := range res.Patterns {
		tried = append(tried, p.Category+"/"+p.Pattern)
	}
	msg := "No documents matched " + strconv.Quote(res.Expression) + "."
	if len(tried) > 0 {
		msg += " Tried " + strings.Join(firstN(tried, 8), ", ") + "."
	}
	for _, p := range res.Patterns {
		if !hasExtension(p.Pattern) {
			msg += " A pattern without an extension also matches name.*."
			break
		}
	}
	return msg + " Try a broader pattern such as category/* or call category_list to see each category's patterns."
}
