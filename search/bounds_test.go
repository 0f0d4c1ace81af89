package search

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
)

// TestQueryBoundsConfig: max_query_bytes and max_query_terms have documented defaults, are read
// from the file and reach the Searcher's options; 0 or a non-integer is INVALID_CONFIG.
func TestQueryBoundsConfig(t *testing.T) {
	d := DefaultConfig().Search
	if d.MaxQueryBytes != DefaultMaxQueryBytes || d.MaxQueryTerms != DefaultMaxQueryTerms {
		t.Errorf("defaults %d bytes, %d terms", d.MaxQueryBytes, d.MaxQueryTerms)
	}
	cfg, err := LoadConfig(strings.NewReader("settings: {mcp: {files: {search: {max_query_bytes: 100, max_query_terms: 3}}}}"))
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.SearcherOptions(); o.MaxQueryBytes != 100 || o.MaxQueryTerms != 3 {
		t.Errorf("options %d bytes, %d terms; want 100 and 3", o.MaxQueryBytes, o.MaxQueryTerms)
	}
	for _, bad := range []string{
		"settings: {mcp: {files: {search: {max_query_bytes: 0}}}}",
		"settings: {mcp: {files: {search: {max_query_terms: many}}}}",
	} {
		var e *agentfiles.Error
		if _, err := LoadConfig(strings.NewReader(bad)); !errors.As(err, &e) || e.Code != agentfiles.CodeInvalidConfig || !strings.HasPrefix(e.Arg, "settings.mcp.files.search.max_query_") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
