package agentfiles

import "context"

// AnswerEncoding is how an adapter sends a tool's answer. Answer caps count the bytes as sent
// (fileio's grep answer cap, for one), so an adapter that sends more than one JSON document
// per answer says so on the call's context with [WithAnswerEncoding].
type AnswerEncoding uint8

const (
	// AnswerJSON: the answer is one JSON document (the HTTP API). The default.
	AnswerJSON AnswerEncoding = iota
	// AnswerJSONAndText: the answer is sent twice, as JSON and as a JSON string holding that
	// JSON again (MCP's structuredContent and its text block), so each string of the answer
	// counts its escapes twice, the second time escaped again.
	AnswerJSONAndText
)

type answerEncodingKey struct{}

// WithAnswerEncoding returns a copy of ctx telling the services how the answer of the call is sent.
func WithAnswerEncoding(ctx context.Context, e AnswerEncoding) context.Context {
	return context.WithValue(ctx, answerEncodingKey{}, e)
}

// AnswerEncodingFromContext returns the encoding set by WithAnswerEncoding, AnswerJSON if none.
func AnswerEncodingFromContext(ctx context.Context) AnswerEncoding {
	e, _ := ctx.Value(answerEncodingKey{}).(AnswerEncoding)
	return e
}
