package openai

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/consult"
)

// maxEventBytes caps one server-sent event line.
const maxEventBytes = 4 << 20

type streamChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage      `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// readStream reads a chat-completions event stream ("data: {chunk}" events ending with
// "data: [DONE]") and accumulates the answer. On a read error it returns what it has so far with
// the error, so the caller can keep a partial answer.
func readStream(ctx context.Context, body io.Reader) (*consult.Completion, error) {
	c := &consult.Completion{}
	var text strings.Builder
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), maxEventBytes)
	var data strings.Builder
	done := false
	dispatch := func() error {
		payload := data.String()
		data.Reset()
		if payload == "" {
			return nil
		}
		if payload == "[DONE]" {
			done = true
			return nil
		}
		var ch streamChunk
		if err := json.Unmarshal([]byte(payload), &ch); err != nil {
			return agentfiles.WrapError(consult.CodeModelError, "the model provider sent an unreadable stream event", "", err)
		}
		if len(ch.Error) > 0 && string(ch.Error) != "null" {
			msg, typ, code := parseProviderError([]byte(`{"error":` + string(ch.Error) + `}`))
			if msg == "" {
				msg = "unknown error"
			}
			return agentfiles.NewError(consult.CodeModelError, "the model provider reported an error mid-stream: "+msg+
				" (type "+orDash(typ)+", code "+orDash(code)+")", "")
		}
		if ch.Model != "" {
			c.Model = ch.Model
		}
		for _, choice := range ch.Choices {
			text.WriteString(choice.Delta.Content)
			if choice.FinishReason != nil && *choice.FinishReason != "" {
				c.FinishReason = *choice.FinishReason
			}
		}
		if ch.Usage != nil {
			c.Usage = ch.Usage.usage()
		}
		return nil
	}
	var err error
	for !done && sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			err = dispatch()
		case strings.HasPrefix(line, ":"): // comment / keep-alive
		case strings.HasPrefix(line, "data:"):
			v := strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(v)
		}
		if err != nil {
			break
		}
	}
	if err == nil && !done {
		if serr := sc.Err(); serr != nil {
			err = serr
		} else if derr := dispatch(); derr != nil { // a last event without its blank line
			err = derr
		}
		if err == nil && !done && c.FinishReason == "" {
			err = errStreamEnded
		}
	}
	c.Text = text.String()
	c.Truncated = c.FinishReason == "length"
	if err != nil {
		c.Truncated = true
		var ce *agentfiles.Error
		if !errors.As(err, &ce) && ctx.Err() == nil {
			err = agentfiles.WrapError(consult.CodeModelError, "the answer stream broke off: "+err.Error()+"; retry", "", err)
		}
	}
	return c, err
}
