package agentfiles_test

import (
	"context"
	"fmt"

	"github.com/agentfiles/agentfiles"
)

// A binding that sends each answer twice, as MCP does (structured content and its JSON as
// text), marks the call's context so that the services' answer caps count both copies.
func ExampleWithAnswerEncoding() {
	ctx := agentfiles.WithAnswerEncoding(context.Background(), agentfiles.AnswerJSONAndText)
	fmt.Println(agentfiles.AnswerEncodingFromContext(ctx) == agentfiles.AnswerJSONAndText)
	fmt.Println(agentfiles.AnswerEncodingFromContext(context.Background()) == agentfiles.AnswerJSON)
	// Output:
	// true
	// true
}
