package adapters

// Texter is implemented by tool results whose text for a model is not their JSON: tools that
// answer in prose, such as memory (adapters/memorytools), whose texts are the ones Anthropic's
// memory tool documents. A binding that answers in text (the text content of an MCP result)
// sends ToolText() instead of the JSON; the structured content, and the JSON body of
// adapters/httpapi, stay the result's JSON.
type Texter interface {
	ToolText() string
}
