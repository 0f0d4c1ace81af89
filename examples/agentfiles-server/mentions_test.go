package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/examples/internal/bundled"
	"github.com/agentfiles/agentfiles/internal/toolmention"
	"github.com/google/go-cmp/cmp"
)

// writableCatalog returns the bundled example catalog, extracted to a directory removed with
// the test, so that -catalog-writable can serve it.
func writableCatalog(t *testing.T) string {
	t.Helper()
	dir, remove, err := bundled.Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	return filepath.Join(dir, bundled.CatalogFile)
}

// Every description, schema description, error message and notice of every tool names only
// tools the server registers, whatever prefix the documentation tools get.
func TestToolTextsNameOnlyRegisteredTools(t *testing.T) {
	catalog := writableCatalog(t)
	for _, args := range [][]string{
		nil, // the default: docs_ prefix, every family
		{"-docs-tool-prefix", ""},
		{"-docs-tool-prefix", "kb_", "-catalog", catalog, "-catalog-writable"},
	} {
		t.Run(strings.Join(append([]string{"args"}, args...), " "), func(t *testing.T) {
			a, err := newTestApp(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			toolmention.Check(t, t.Context(), a.tools, toolmention.Known)
		})
	}
}

// toolmention.Known is every tool this server can register, unprefixed.
func TestKnownToolNamesAreEveryTool(t *testing.T) {
	a, err := newTestApp(t, "-docs-tool-prefix", "", "-catalog", writableCatalog(t), "-catalog-writable")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range a.tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if diff := cmp.Diff(toolmention.Known, names); diff != "" {
		t.Errorf("internal/toolmention.Known is not the set of tools (-Known +registered); update Known:\n%s", diff)
	}
}
