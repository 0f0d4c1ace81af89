package fileio

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// RenameResult is the answer of Service.Rename.
type RenameResult struct {
	Files int `json:"files"` // how many files moved
	// SHA256 is the moved file's content hash when a single file moved ("" for a directory).
	SHA256 string `json:"sha256,omitempty"`
}

// Rename moves the file or the whole directory at from to to, atomically under the project
// lock: readers see all of it moved or none. A directory's files keep their paths below it.
// Each moved file is a new file at its new path (CreatedAt and UpdatedAt are now), the old
// paths are deleted and keep their last version in the history; index jobs follow the move
// (DELETE for the old paths, UPSERT for the new), so search does too.
//
// Errors: NOT_FOUND when nothing exists at from; ALREADY_EXISTS when a file exists at a
// destination path unless overwrite (which replaces such files, the replaced content kept in
// their history); IS_DIRECTORY when a directory exists where a file would go; NOT_DIRECTORY
// when a file exists where a directory would go (at to, for a directory, or above it);
// INVALID_ARGUMENT for from == to, the root, or a directory moved below itself or onto one
// that contains it; INVALID_PATH when a new path breaks the path rules (see ValidatePath);
// QUOTA_EXCEEDED when the versions it keeps of the old paths (and its change-feed events)
// would take the project past max_project_bytes: a rename never grows the project's files,
// but with the history on it keeps what it moves twice until the old versions go.
//
// A directory of more than Config.MaxRenameFiles files is INVALID_ARGUMENT: rename its
// subdirectories one at a time.
func (s *Service) Rename(ctx context.Context, req RenameRequest) (RenameResult, error) {
	return s.rename(ctx, req)
}

func (s *Service) rename(ctx context.Context, req RenameRequest) (RenameResult, error) {
	project, from, to, overwrite, exclusive := req.Project, req.From, req.To, req.Overwrite, req.Exclusive
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	from, to = NormalizePath(from), NormalizePath(to)
	ac, scope, err := s.begin(ctx, project, from)
	if err == nil {
		err = checkRename(s.cfg.PathRule, from, to)
	}
	if err == nil {
		err = checkExpectedSHA256(req.ExpectedSHA256)
	}
	var res RenameResult
	if err == nil {
		refs := s.sealRename(ctx, ac, scope, from, to)
		res, err = inUpdate(ctx, s, scope, func(tx driver.WriteTx) (RenameResult, error) {
			if err := expectSHA256(ctx, tx, from, req.ExpectedSHA256); err != nil {
				return RenameResult{}, err
			}
			res, err := s.renameTx(ctx, tx, from, to, overwrite, exclusive, func(path string) string {
				if ref, ok := refs[path]; ok {
					return ref
				}
				return s.seal(ctx, ac, scope, path).CredentialRef // a file that appeared meanwhile
			})
			if err != nil {
				return res, err
			}
			if f, err := tx.Get(ctx, to); err == nil { // a single file moved
				res.SHA256 = SHA256Hex(f.Content)
			}
			return res, nil
		})
	}
	s.logOp(ctx, "rename", ac, project, from, err, slog.String("to", to), slog.Bool("overwrite", overwrite),
		slog.Bool("exclusive", exclusive), slog.Int("files", res.Files))
	return res, err
}

func checkRename(rule PathRule, from, to string) error {
	if err := rule.Validate(to); err != nil {
		return err
	}
	switch {
	case from == "" || to == "":
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, "the project root cannot be renamed or replaced; name a file or directory below it", "")
	case from == to:
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, "from and to are the same path; give a different destination", to)
	case strings.HasPrefix(to, dirPrefix(from)):
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, "the destination lies inside the path being moved; choose a destination outside it", to)
	}
	return nil
}

// sealRename seals the caller's credential for each path the files at from will have, before
// the project lock is taken (envelopes are bound to their path). Nil without a sealer.
func (s *Service) sealRename(ctx context.Context, ac agentfiles.AuthContext, scope driver.Scope, from, to string) map[string]string {
	if s.sealer == nil {
		return nil
	}
	files, err := inView(ctx, s, scope, func(tx driver.ReadTx) ([]driver.FileInfo, error) {
		if info, ok, err := tx.Stat(ctx, from); err != nil || ok {
			return []driver.FileInfo{info}, err
		}
		return tx.List(ctx, dirPrefix(from), 0)
	})
	if err != nil {
		return nil // the Update reports it, or seals inside
	}
	refs := make(map[string]string, len(files))
	for _, f := range files {
		if f.Path == from || strings.HasPrefix(f.Path, dirPrefix(from)) {
			target := to + f.Path[len(from):]
			refs[target] = s.seal(ctx, ac, scope, target).CredentialRef
		}
	}
	return refs
}

func (s *Service) renameTx(ctx context.Context, tx driver.WriteTx, from, to string, overwrite, exclusive bool, credential func(path string) string) (RenameResult, error) {
	var moves []driver.Move
	_, isFile, err := tx.Stat(ctx, from)
	if err != nil {
		return RenameResult{}, err
	}
	if isFile {
		moves = []driver.Move{{From: from, To: to}}
	} else {
		files, err := tx.List(ctx, dirPrefix(from), s.cfg.MaxRenameFiles+1)
		if err != nil {
			return RenameResult{}, err
		}
		if len(files) == 0 {
			return RenameResult{}, agentfiles.NewError(agentfiles.CodeNotFound, "nothing exists at this path; use file_list to see existing files", from)
		}
		if err := s.checkRenameCount(from, len(files)); err != nil {
			return RenameResult{}, err
		}
		moves = make([]driver.Move, len(files))
		for i, f := range files {
			moves[i] = driver.Move{From: f.Path, To: to + f.Path[len(from):]}
			if err := s.cfg.PathRule.Validate(moves[i].To); err != nil {
				return RenameResult{}, err
			}
		}
	}
	replaced, err := s.checkDestination(ctx, tx, from, to, moves, isFile, overwrite, exclusive)
	if err != nil {
		return RenameResult{}, err
	}
	if len(replaced) > 0 {
		if err := tx.Delete(ctx, replaced...); err != nil {
			return RenameResult{}, err
		}
	}
	if s.sealer != nil {
		for i := range moves {
			moves[i].CredentialRef = credential(moves[i].To)
		}
	}
	if m, ok := tx.(driver.Mover); ok {
		if _, err := m.Move(ctx, moves); err != nil {
			return RenameResult{}, err
		}
		return RenameResult{Files: len(moves)}, nil
	}
	olds := make([]string, len(moves))
	for i, mv := range moves {
		f, err := tx.Get(ctx, mv.From)
		if err != nil {
			return RenameResult{}, err
		}
		if _, err := tx.Put(ctx, mv.To, f.Content, driver.PutOptions{CredentialRef: mv.CredentialRef}); err != nil {
			return RenameResult{}, err
		}
		olds[i] = mv.From
	}
	if err := tx.Delete(ctx, olds...); err != nil {
		return RenameResult{}, err
	}
	return RenameResult{Files: len(moves)}, nil
}

// checkDestination applies the path rules to the destination of moves and returns the
// existing files that overwrite lets them replace.
func (s *Service) checkDestination(ctx context.Context, tx driver.WriteTx, from, to string, moves []driver.Move, isFile, overwrite, exclusive bool) ([]string, error) {
	// No ancestor of to may be a file (other than one being moved away, which cannot be: to is
	// not below from).
	for _, dir := range ancestors(to) {
		_, exists, err := tx.Stat(ctx, dir)
		if err != nil {
			return nil, err
		}
		if exists {
			return nil, agentfiles.NewError(CodeNotDirectory, fmt.Sprintf("%s is a file, so it cannot contain %s; choose another destination", dir, to), dir)
		}
	}
	atTo, toIsFile, err := tx.Stat(ctx, to)
	if err != nil {
		return nil, err
	}
	below, err := tx.List(ctx, dirPrefix(to), 0)
	if err != nil {
		return nil, err
	}
	if exclusive && (toIsFile || len(below) > 0) {
		return nil, agentfiles.NewError(agentfiles.CodeAlreadyExists, "something exists at the destination; choose a path where nothing is", to)
	}
	if isFile {
		switch {
		case len(below) > 0:
			return nil, agentfiles.NewError(agentfiles.CodeIsDirectory, "a directory exists at the destination; move the file into it by naming the full path, e.g. to + \"/name\"", to)
		case toIsFile && !overwrite:
			return nil, agentfiles.NewError(agentfiles.CodeAlreadyExists, "a file exists at the destination; pass overwrite=true to replace it", to)
		case toIsFile:
			return []string{atTo.Path}, nil
		}
		return nil, nil
	}
	if strings.HasPrefix(from, dirPrefix(to)) {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "cannot move a directory onto a directory that contains it; choose another destination", to)
	}
	if toIsFile {
		return nil, agentfiles.NewError(CodeNotDirectory, "a file exists at the destination, so the directory cannot move there; choose another destination or delete that file", to)
	}
	// Merge into an existing directory: each destination path must be free (or a file that
	// overwrite replaces), and must not lie below, or above, a file that stays.
	existing := make(map[string]bool, len(below))
	for _, f := range below {
		existing[f.Path] = true
	}
	targets := make(map[string]bool, len(moves))
	for _, mv := range moves {
		targets[mv.To] = true
	}
	var replaced []string
	for _, mv := range moves {
		if existing[mv.To] {
			if !overwrite {
				return nil, agentfiles.NewError(agentfiles.CodeAlreadyExists, "a file exists at a destination path; pass overwrite=true to replace it", mv.To)
			}
			replaced = append(replaced, mv.To)
		}
		for _, dir := range ancestors(mv.To) {
			if len(dir) > len(to) && existing[dir] {
				return nil, agentfiles.NewError(CodeNotDirectory, fmt.Sprintf("%s is a file, so it cannot contain %s", dir, mv.To), dir)
			}
		}
	}
	for _, f := range below {
		if targets[f.Path] {
			continue
		}
		for _, dir := range ancestors(f.Path) {
			if targets[dir] {
				return nil, agentfiles.NewError(agentfiles.CodeIsDirectory, "a directory exists where a moved file would go", dir)
			}
		}
	}
	return replaced, nil
}
