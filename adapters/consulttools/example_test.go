package consulttools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/consulttools"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/consult/openai"
)

// The tool set offers the Consultant's models; a call whose files cannot be used fails before
// any model is reached.
func Example() {
	m, err := openai.New("gpt-4.1-mini", openai.Options{ContextWindow: 128_000})
	if err != nil {
		log.Fatal(err)
	}
	tools := consulttools.Tools(consult.NewConsultant(consult.ConsultantOptions{Models: []consult.Model{m}}))
	tool := tools[0]
	fmt.Println(tool.Name, "open-world:", tool.Annotations.OpenWorld)

	_, err = tool.Handler(context.Background(), json.RawMessage(`{"files": ["src/*.py"], "query": "What does it do?"}`))
	te, _ := adapters.ErrorOf(err)
	fmt.Println(te.Code, "retryable:", te.Retryable)
	// Output:
	// consultation open-world: true
	// NOT_FOUND retryable: false
}
