package agentfiles_test

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/consult/filecontext"
	"github.com/agentfiles/agentfiles/expr"
	"github.com/agentfiles/agentfiles/fileid"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/agentfiles/agentfiles/search/provider"
	"github.com/agentfiles/agentfiles/search/vault"
	"github.com/agentfiles/agentfiles/search/vault/redisttl"
)

// codeSets is every package's list of the codes it can return.
func codeSets() map[string][]agentfiles.Code {
	return map[string][]agentfiles.Code{
		"agentfiles":  agentfiles.SharedCodes(),
		"adapters":    adapters.Codes(),
		"fileid":      fileid.Codes(),
		"expr":        expr.Codes(),
		"consult":     consult.Codes(),
		"filecontext": filecontext.Codes(),
		"fileio":      fileio.Codes(),
		"search":      search.Codes(),
		"provider":    provider.Codes(),
		"memindex":    memindex.Codes(),
		"pgindex":     pgindex.Codes(),
		"vault":       vault.Codes(),
		"redisttl":    redisttl.Codes(),
	}
}

var codeName = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)

// TestEveryCodeHasAStatus is the completeness check of the status table: every code any package
// can return has a well-formed name, one kind wherever it is declared, and a kind with its own
// HTTP status.
func TestEveryCodeHasAStatus(t *testing.T) {
	kindOf := map[string]agentfiles.Kind{}
	declaredIn := map[string]string{}
	for pkg, codes := range codeSets() {
		if len(codes) == 0 {
			t.Errorf("package %s lists no codes", pkg)
		}
		for _, c := range codes {
			name := c.String()
			if !codeName.MatchString(name) {
				t.Errorf("%s: code %q is not UPPER_SNAKE_CASE", pkg, name)
			}
			if k, ok := kindOf[name]; ok && k != c.Kind() {
				t.Errorf("code %s has kind %q in %s but %q in %s", name, c.Kind(), pkg, k, declaredIn[name])
			}
			kindOf[name], declaredIn[name] = c.Kind(), pkg
			status := adapters.HTTPStatus(c.Kind())
			if status == http.StatusInternalServerError && c.Kind() != agentfiles.KindInternal {
				t.Errorf("%s: code %s (kind %q) has no HTTP status", pkg, name, c.Kind())
			}
		}
	}
}

// TestErrorsIsAcrossPackages checks real errors, produced by different packages for the same
// code, against each other and against the shared sentinel.
func TestErrorsIsAcrossPackages(t *testing.T) {
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("k", "test"))
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, fileioErr := svc.Read(ctx, fileio.ReadRequest{Project: "p", Path: "/missing.md", OffsetBytes: 0, LengthBytes: new(int64(fileio.ReadToEOF))})
	_, consultErrs := consult.Expand([]string{t.TempDir() + "/missing.md"})
	if len(consultErrs) != 1 {
		t.Fatalf("consult.Expand errors = %v, want one", consultErrs)
	}
	consultErr := error(consultErrs[0].Err)

	for _, err := range []error{fileioErr, consultErr} {
		if !errors.Is(err, agentfiles.ErrNotFound) {
			t.Errorf("errors.Is(%v, agentfiles.ErrNotFound) = false", err)
		}
	}
	if !errors.Is(fileioErr, consultErr) || !errors.Is(consultErr, fileioErr) {
		t.Errorf("fileio's and consult's NOT_FOUND do not match each other: %v / %v", fileioErr, consultErr)
	}
	if errors.Is(fileioErr, fileid.ErrFileIDNotFound) {
		t.Errorf("NOT_FOUND matches fileid's FILE_ID_NOT_FOUND")
	}
}
