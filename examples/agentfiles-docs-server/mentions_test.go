package main

import (
	"path/filepath"
	"testing"

	"github.com/agentfiles/agentfiles/adapters/fileidtools"
	"github.com/agentfiles/agentfiles/examples/internal/bundled"
	"github.com/agentfiles/agentfiles/fileid"
	"github.com/agentfiles/agentfiles/internal/toolmention"
)

// The tools as this server registers them (unprefixed, alone) name only each other in their
// descriptions, schemas, errors and notices.
func TestToolTextsNameOnlyRegisteredTools(t *testing.T) {
	dir, remove, err := bundled.ExtractTemp()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	docs := filepath.Join(dir, bundled.DocsDir)
	root, err := fileid.DirRoot(docs, docs)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := fileid.New(t.Context(), []fileid.Root{root}, fileid.Options{})
	if err != nil {
		t.Fatal(err)
	}
	toolmention.Check(t, t.Context(), fileidtools.Tools(reg), toolmention.Known)
}
