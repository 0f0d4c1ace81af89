package driver

import "context"

// Move is one file of a rename: the active file at From goes to To.
type Move struct {
	From, To string
	// CredentialRef is the sealed credential for the indexer's UPSERT job of To (see
	// PutOptions.CredentialRef); "" when the Service has no CredentialSealer.
	CredentialRef string
}

// Mover is an optional interface of a WriteTx that moves files in one step (pgstore: one
// statement, the content never leaves the database). Service.Rename uses it when the WriteTx
// implements it; otherwise it makes a Get, a Put and a Delete per file. Both give the same
// results: each moved file is a new file at its To path (CreatedAt == UpdatedAt == now, an
// UPSERT job) and its From path is deleted (a DELETE job, its last version kept in the
// history as for Delete).
type Mover interface {
	// Move moves the active files at moves[i].From to moves[i].To. The Service has checked
	// that every From exists and no To does (it deleted those it overwrites first), and that
	// no To is a From of the same call. It returns the infos of the new files, in order.
	Move(ctx context.Context, moves []Move) ([]FileInfo, error)
}
