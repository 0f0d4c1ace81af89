package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/examples/internal/bundled"
	"github.com/agentfiles/agentfiles/internal/toolmention"
	"github.com/google/go-cmp/cmp"
)

// writableCatalog returns the bundled example catalog, extracted to a directory removed with
// the test, so that -catalog-writable can serve it.
func writableCatalog(t *testing.T) string {
	t.Helper()
	dir, remove, err := bundled.ExtractTemp()
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

// The consultation tool's description names the directories it may read; over the bundled
// guide that is a directory that stays the same from run to run, not a fresh temporary one.
func TestConsultationDescriptionIsStable(t *testing.T) {
	var descs []string
	for range 2 {
		a, err := newTestApp(t)
		if err != nil {
			t.Fatal(err)
		}
		tool, _ := adapters.Find(a.tools, "consultation")
		descs = append(descs, tool.Description)
	}
	if diff := cmp.Diff(descs[0], descs[1]); diff != "" {
		t.Errorf("the description changed between two runs (-first +second):\n%s", diff)
	}
	if strings.Contains(descs[0], os.TempDir()) {
		t.Errorf("the description names a temporary directory: %q", descs[0])
	}
}
