package main

import (
	"path/filepath"
	"testing"

	"github.com/agentfiles/agentfiles/adapters/exprtools"
	"github.com/agentfiles/agentfiles/examples/internal/bundled"
	"github.com/agentfiles/agentfiles/expr"
	"github.com/agentfiles/agentfiles/internal/toolmention"
)

// The tools as this server registers them, read-only and writable, name only tools it registers
// in their descriptions, schemas, errors and notices.
func TestToolTextsNameOnlyRegisteredTools(t *testing.T) {
	dir, remove, err := bundled.ExtractTemp()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	catalog := filepath.Join(dir, bundled.CatalogFile)
	for _, readOnly := range []bool{true, false} {
		cat, err := expr.Load(catalog, expr.Options{DirRoots: []string{filepath.Dir(catalog)}})
		if err != nil {
			t.Fatal(err)
		}
		toolmention.Check(t, t.Context(), exprtools.Tools(cat, exprtools.Options{ReadOnly: readOnly}), toolmention.Known)
	}
}
