package consult

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles"
)

// maxOutputAttempts bounds the search for a free output file name.
const maxOutputAttempts = 1000

// writeOutput writes text to p, or, when p exists, to the first free name among
// name_updated.ext, name_updated_2.ext, name_updated_3.ext, ... It never overwrites a file:
// each candidate is created with O_EXCL. It returns the path written.
func writeOutput(p, text string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		return "", agentfiles.NewError(agentfiles.CodeInvalidArgument, "output_file must be an absolute path, e.g. /home/me/project/review.md", p)
	}
	p = path.Clean(p)
	if st, err := os.Stat(path.Dir(p)); err != nil || !st.IsDir() {
		return "", agentfiles.NewError(agentfiles.CodeInvalidArgument, "the directory of output_file does not exist; create it or choose another path", p)
	}
	ext := path.Ext(p)
	stem := strings.TrimSuffix(p, ext)
	for i := 0; i < maxOutputAttempts; i++ {
		cand := p
		switch {
		case i == 1:
			cand = stem + "_updated" + ext
		case i > 1:
			cand = stem + "_updated_" + strconv.Itoa(i) + ext
		}
		f, err := os.OpenFile(cand, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				return "", agentfiles.WrapError(agentfiles.CodePermissionDenied, "cannot create output_file; choose a writable directory", cand, err)
			}
			return "", agentfiles.WrapError(agentfiles.CodeInternal, "cannot create output_file", cand, err)
		}
		_, werr := f.WriteString(text)
		cerr := f.Close()
		if werr != nil || cerr != nil {
			os.Remove(cand) // nothing half written is left behind
			return "", agentfiles.WrapError(agentfiles.CodeInternal, "cannot write output_file", cand, errors.Join(werr, cerr))
		}
		return cand, nil
	}
	return "", agentfiles.NewError(CodeOutputExists, "output_file and "+strconv.Itoa(maxOutputAttempts-1)+
		" _updated variants all exist; choose another name", p)
}
