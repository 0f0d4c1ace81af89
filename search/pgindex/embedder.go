package pgindex

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// EmbedderIdentity names the embedder that made an index's vectors: the model name
// (search.Embedder.Model) and the vector size (search.Embedder.Dimensions). Vectors of two
// identities are never comparable, even when only the size differs. The zero value means "no
// embedder": a lexical-only process.
type EmbedderIdentity struct {
	Model      string
	Dimensions int
}

// IdentityOf returns the identity of e (the zero identity for a nil e).
func IdentityOf(e search.Embedder) EmbedderIdentity {
	if e == nil {
		return EmbedderIdentity{}
	}
	return EmbedderIdentity{Model: e.Model(), Dimensions: e.Dimensions()}
}

// IsZero reports whether id is the zero identity (no embedder).
func (id EmbedderIdentity) IsZero() bool { return id == EmbedderIdentity{} }

// String renders id as `"model" (N dimensions)`, as the errors that name identities do.
func (id EmbedderIdentity) String() string {
	return fmt.Sprintf("%q (%d dimensions)", id.Model, id.Dimensions)
}

// maxModelLen is the size of the model columns.
const maxModelLen = 128

// validate accepts the zero identity and complete ones that fit the schema.
func (id EmbedderIdentity) validate(what string) error {
	switch {
	case id.IsZero():
		return nil
	case id.Model == "" || id.Dimensions <= 0:
		return agentfiles.NewError(agentfiles.CodeInvalidConfig, "the embedder identity needs both a model name and a positive number of dimensions (use pgindex.IdentityOf(embedder)), or neither for a lexical-only process", what)
	case len(id.Model) > maxModelLen:
		return agentfiles.NewError(agentfiles.CodeInvalidConfig, fmt.Sprintf("the embedding model name is longer than %d bytes", maxModelLen), what)
	}
	return nil
}

// sqlEmbedderMismatch is the SQLSTATE that the trigger of migration 0002 raises when a
// statement stores vectors of another embedder than the recorded one; backendError maps it to
// INVALID_CONFIG with the trigger's message (which names both identities).
const sqlEmbedderMismatch = "AF001"

// embedderMismatch returns the trigger's error in err's chain, if there is one.
func embedderMismatch(err error) (*pgconn.PgError, bool) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == sqlEmbedderMismatch {
		return pe, true
	}
	return nil, false
}

// rowQuerier is what readRecorded needs of a connection, pool or transaction.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// readRecorded returns the identity recorded for the database, and whether there is one.
func readRecorded(ctx context.Context, q rowQuerier, lock string) (EmbedderIdentity, bool, error) {
	var id EmbedderIdentity
	err := q.QueryRow(ctx, "SELECT model, dims FROM mcp_search_embedder "+lock).Scan(&id.Model, &id.Dimensions)
	if errors.Is(err, pgx.ErrNoRows) {
		return EmbedderIdentity{}, false, nil
	}
	return id, err == nil, err
}

// RecordedEmbedder returns the identity of the embedder whose vectors the database holds, or the
// zero identity when none is recorded yet (no vectors stored, or a database indexed before
// identities were recorded whose vectors disagree).
func (ix *Index) RecordedEmbedder(ctx context.Context) (EmbedderIdentity, error) {
	id, _, err := readRecorded(ctx, ix.pool, "")
	return id, backendError(ctx, "reading the recorded embedder", err)
}

// mismatchError is New's refusal: the database holds vectors of recorded, the process is
// configured with want.
func mismatchError(recorded, want EmbedderIdentity, unrecorded bool) error {
	holds := "the search index in this database holds vectors of embedder " + recorded.String()
	if unrecorded {
		holds += " (among others; it was indexed before pgindex recorded embedders)"
	}
	return agentfiles.NewError(agentfiles.CodeInvalidConfig, holds+", but this process is configured with "+want.String()+
		"; vectors of different embedders cannot be compared, so configure the recorded embedder, or switch the database "+
		"to the new one explicitly with pgindex's Index.Reembed (it drops the old vectors and re-embeds every indexed chunk)", "Embedder")
}

// checkEmbedder is New's check of Options.Embedder against the database, under the schema lock:
// a lexical-only process (zero identity) is never refused; otherwise the identity is recorded
// when none is, and must equal the recorded one.
func (ix *Index) checkEmbedder(ctx context.Context, conn *pgxpool.Conn, want EmbedderIdentity) error {
	if want.IsZero() {
		return nil
	}
	rec, ok, err := readRecorded(ctx, conn, "")
	if err != nil {
		return err
	}
	if !ok {
		// A new database, or one indexed before identities were recorded whose vectors disagree
		// (the migration records the identity when they agree): record want unless the database
		// holds vectors of another embedder.
		var other EmbedderIdentity
		err := conn.QueryRow(ctx, "SELECT model, dims FROM mcp_search_vectors WHERE model <> $1 OR dims <> $2 LIMIT 1",
			want.Model, want.Dimensions).Scan(&other.Model, &other.Dimensions)
		if err == nil {
			return mismatchError(other, want, true)
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if _, err := conn.Exec(ctx, "INSERT INTO mcp_search_embedder (model, dims) VALUES ($1, $2) ON CONFLICT DO NOTHING",
			want.Model, want.Dimensions); err != nil {
			return err
		}
		// Another process, or the first vectors stored, may have recorded another one meanwhile.
		if rec, ok, err = readRecorded(ctx, conn, ""); err != nil {
			return err
		}
		if !ok {
			return errors.New("the embedder identity was not recorded")
		}
	}
	if rec != want {
		return mismatchError(rec, want, false)
	}
	ix.log.Info("pgindex embedder matches the database", "model", want.Model, "dimensions", want.Dimensions)
	return nil
}

// ReembedOptions are the optional settings of [Index.Reembed].
type ReembedOptions struct {
	// SwitchOnly records the new identity and drops the old vectors but embeds nothing: the
	// indexed files stay findable lexically, and each gets vectors again when the Indexer next
	// indexes it (when it is written) or when Reembed runs again without SwitchOnly.
	SwitchOnly bool
	// BatchFiles is how many files are listed at a time while embedding (default 100). Each
	// file's chunks are embedded in one Embed call, as the Indexer does.
	BatchFiles int
	// Content returns the content of the file at path when its version is still version, or
	// ok false when it is not (the file changed or is gone: it is skipped and left to the
	// Indexer). The index keeps chunk offsets, not chunk text (see indexdriver.Index), so Reembed
	// reads the text to embed from the files: pass StoreContent(store) for the file store the
	// index was built from. Required unless SwitchOnly.
	Content func(ctx context.Context, scope driver.Scope, path string, version time.Time) (content []byte, ok bool, err error)
}

// StoreContent returns a ReembedOptions.Content that reads files from store.
func StoreContent(store driver.Store) func(context.Context, driver.Scope, string, time.Time) ([]byte, bool, error) {
	return func(ctx context.Context, scope driver.Scope, path string, version time.Time) ([]byte, bool, error) {
		var content []byte
		ok := false
		err := store.View(ctx, scope, func(tx driver.ReadTx) error {
			info, found, err := tx.Stat(ctx, path)
			if err != nil || !found || !info.UpdatedAt.Equal(version) {
				return err
			}
			f, err := tx.Get(ctx, path)
			if err != nil {
				return err
			}
			content, ok = f.Content, f.UpdatedAt.Equal(version)
			return nil
		})
		return content, ok, err
	}
}

// ReembedStats says what a Reembed call did.
type ReembedStats struct {
	From           EmbedderIdentity // the identity recorded before (zero: none was)
	To             EmbedderIdentity // the identity recorded now
	Switched       bool             // the recorded identity changed (or was recorded)
	DroppedVectors int64            // vectors of other embedders deleted
	MarkedFiles    int64            // files that lost their vectors and became lexical-only
	Files          int              // files embedded by this call
	Chunks         int64            // chunks embedded by this call
	Skipped        int              // files that changed while being embedded (left to the Indexer)
	Pending        int              // indexed files that still have no vectors of To
}

// Reembed switches the database to the embedder emb explicitly, the one way to change the
// recorded embedder identity (see the package doc): in one transaction it records emb's identity,
// deletes every vector of another embedder and marks those files lexical-only (their chunks and
// postings stay, so lexical search is unaffected), then it embeds the stored chunks of every
// indexed file that has no vectors of emb, file by file, each under the file's lock and only if
// the file has not changed meanwhile. Processes still configured with the old embedder keep
// running but can no longer store vectors (INVALID_CONFIG from ReplaceFile) and find no
// semantic candidates: restart them with emb.
//
// Reembed is idempotent and resumable: when it is interrupted (ctx ends, the embedder fails),
// calling it again with the same embedder skips the switch and embeds what is left. Run it from
// one process, typically an operator's one-off command with an Index opened without
// Options.Embedder (which New never refuses). An embedder that calls an API with the caller's
// key (search.CallerCredentialUser) takes the key from ctx (agentfiles.WithAuth): pass the key
// the re-embedding should be billed to, or use SwitchOnly. Errors: INVALID_CONFIG for a nil or
// incomplete embedder, the embedder's own errors, and the Index's usual codes.
func (ix *Index) Reembed(ctx context.Context, emb search.Embedder, opts ReembedOptions) (ReembedStats, error) {
	to := IdentityOf(emb)
	if to.IsZero() {
		return ReembedStats{}, agentfiles.NewError(agentfiles.CodeInvalidConfig, "Reembed needs the embedder to switch the database to", "embedder")
	}
	if err := to.validate("embedder"); err != nil {
		return ReembedStats{}, err
	}
	if opts.BatchFiles <= 0 {
		opts.BatchFiles = 100
	}
	if !opts.SwitchOnly && opts.Content == nil {
		return ReembedStats{}, agentfiles.NewError(agentfiles.CodeInvalidConfig, "Reembed reads the text to embed from the files: pass ReembedOptions.Content (pgindex.StoreContent(store)), or set SwitchOnly", "Content")
	}
	st := ReembedStats{To: to}
	if err := ix.switchEmbedder(ctx, &st); err != nil {
		return st, backendError(ctx, "switching the embedder", err)
	}
	if st.Switched {
		ix.log.Info("pgindex switched embedder", "from", st.From.String(), "to", to.String(), "dropped_vectors", st.DroppedVectors, "lexical_only_files", st.MarkedFiles)
	}
	var err error
	if !opts.SwitchOnly {
		err = ix.embedFiles(ctx, emb, opts, &st)
	}
	if err == nil {
		err = ix.pool.QueryRow(ctx, "SELECT count(*) FROM mcp_search_files WHERE chunk_count > 0 AND embedding_model <> $1", to.Model).Scan(&st.Pending)
		err = backendError(ctx, "counting the files left to embed", err)
	}
	ix.log.Info("pgindex re-embedding", "embedder", to.String(), "files", st.Files, "chunks", st.Chunks, "skipped", st.Skipped, "pending", st.Pending, "error", err)
	return st, err
}

// sqlDropOtherVectors deletes every vector not of ($1, $2) and marks lexical-only every file
// that lost vectors or names another model, returning both counts.
const sqlDropOtherVectors = `WITH dropped AS (
    DELETE FROM mcp_search_vectors WHERE model <> $1 OR dims <> $2 RETURNING project_id, file_path
), marked AS (
    UPDATE mcp_search_files f SET embedding_model = '', write_xact = pg_current_xact_id()
    WHERE f.embedding_model <> '' AND (f.embedding_model <> $1 OR (f.project_id, f.file_path) IN (SELECT project_id, file_path FROM dropped))
    RETURNING f.project_id
)
SELECT (SELECT coalesce(sum(f.chunk_count), 0) FROM dropped d JOIN mcp_search_files f USING (project_id, file_path)),
       (SELECT count(*) FROM marked)`

// switchEmbedder is Reembed's first step, in one transaction. The EXCLUSIVE lock on the vector
// table waits for every transaction that stores or deletes vectors and holds off new ones until
// commit, so no vector checked against the old identity can commit after the switch.
func (ix *Index) switchEmbedder(ctx context.Context, st *ReembedStats) error {
	return pgx.BeginFunc(ctx, ix.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "LOCK TABLE mcp_search_vectors IN EXCLUSIVE MODE"); err != nil {
			return err
		}
		from, ok, err := readRecorded(ctx, tx, "FOR UPDATE")
		if err != nil {
			return err
		}
		st.From, st.Switched = from, !ok || from != st.To
		if err := tx.QueryRow(ctx, sqlDropOtherVectors, st.To.Model, st.To.Dimensions).Scan(&st.DroppedVectors, &st.MarkedFiles); err != nil {
			return err
		}
		if st.DroppedVectors > 0 || st.MarkedFiles > 0 {
			// Every process's caches of file states and vectors reload at their next query.
			if _, err := tx.Exec(ctx, "UPDATE mcp_search_projects SET generation = generation + 1"); err != nil {
				return err
			}
		}
		if !st.Switched {
			return nil
		}
		_, err = tx.Exec(ctx, `INSERT INTO mcp_search_embedder (model, dims) VALUES ($1, $2)
ON CONFLICT (singleton) DO UPDATE SET model = EXCLUDED.model, dims = EXCLUDED.dims, recorded_at = now()`, st.To.Model, st.To.Dimensions)
		return err
	})
}

// fileToEmbed is one indexed file version without vectors of the target embedder.
type fileToEmbed struct {
	project int64
	scope   driver.Scope
	path    string
	at      time.Time
	ns      int32
}

// sqlFilesToEmbed lists, in primary-key order after a key, indexed files with chunks that have no
// vectors of model $1.
const sqlFilesToEmbed = `SELECT f.project_id, pr.apikey_hash, pr.project, f.file_path, f.file_updated_at, f.file_updated_ns
FROM mcp_search_files f JOIN mcp_search_projects pr ON pr.id = f.project_id
WHERE f.chunk_count > 0 AND f.embedding_model <> $1 AND (f.project_id, f.file_path) > ($2, $3::text)
ORDER BY f.project_id, f.file_path LIMIT $4`

// embedFiles is Reembed's second step: every indexed file without vectors of st.To, in batches.
func (ix *Index) embedFiles(ctx context.Context, emb search.Embedder, opts ReembedOptions, st *ReembedStats) error {
	batch := opts.BatchFiles
	var afterProject int64
	afterPath := ""
	for {
		rows, err := ix.pool.Query(ctx, sqlFilesToEmbed, st.To.Model, afterProject, afterPath, batch)
		if err != nil {
			return backendError(ctx, "listing the files to embed", err)
		}
		var files []fileToEmbed
		var f fileToEmbed
		_, err = pgx.ForEachRow(rows, []any{&f.project, &f.scope.Tenant, &f.scope.Project, &f.path, &f.at, &f.ns}, func() error {
			files = append(files, f)
			return nil
		})
		if err != nil {
			return backendError(ctx, "listing the files to embed", err)
		}
		for _, f := range files {
			n, err := ix.embedFile(ctx, emb, opts.Content, st.To, f)
			if err != nil {
				return err
			}
			if n < 0 {
				st.Skipped++
				continue
			}
			st.Files++
			st.Chunks += int64(n)
		}
		if len(files) < batch {
			return nil
		}
		last := files[len(files)-1]
		afterProject, afterPath = last.project, last.path
	}
}

// errFileChanged rolls back the vectors of a file that changed while it was embedded.
var errFileChanged = errors.New("the file changed while it was embedded")

// embedFile embeds the chunks of one file version, their text read from the file by their
// offsets, and stores their vectors, returning how many it embedded, or -1 when the file changed
// meanwhile (re-indexed, deleted, or embedded by someone else) and nothing was written.
func (ix *Index) embedFile(ctx context.Context, emb search.Embedder, content func(context.Context, driver.Scope, string, time.Time) ([]byte, bool, error), to EmbedderIdentity, f fileToEmbed) (int, error) {
	sf, found, err := readFile(ctx, ix.pool, f.scope, f.path)
	if err != nil {
		return 0, backendError(ctx, "reading chunks to embed", err)
	}
	if !found || sf.chunks == 0 || !sf.version.Equal(joinVersion(f.at, f.ns)) {
		return -1, nil
	}
	data, ok, err := content(ctx, f.scope, f.path, sf.version)
	if err != nil {
		return 0, err
	}
	if !ok {
		return -1, nil
	}
	texts := make([]string, sf.chunks)
	for i := range texts {
		b := driver.SliceRange(data, sf.dir.start[sf.first+i], sf.dir.end[sf.first+i])
		if b == nil {
			return -1, nil // not the indexed content: left to the Indexer
		}
		texts[i] = string(b)
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return 0, err
	}
	if len(vecs) != len(texts) {
		return 0, agentfiles.NewError(agentfiles.CodeModelError, "the embedder returned a different number of vectors than texts", f.path)
	}
	raw := make([]byte, 0, 4*to.Dimensions*len(vecs))
	for _, v := range vecs {
		if len(v) != to.Dimensions {
			return 0, agentfiles.NewError(agentfiles.CodeModelError, "the embedder returned a vector of the wrong size", f.path)
		}
		raw = appendVector(raw, v)
	}
	err = pgx.BeginFunc(ctx, ix.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlLockVectors); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sqlLockPath, pathLockClass, pathLockKey(f.scope, f.path)); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE mcp_search_files SET embedding_model = $4, indexed_at = statement_timestamp(), write_xact = pg_current_xact_id()
WHERE project_id = $1 AND file_path = $2 AND write_id = $3 AND embedding_model <> $4`, f.project, f.path, sf.writeID, to.Model)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return errFileChanged
		}
		b := &pgx.Batch{}
		b.Queue(sqlDeleteVectors, f.project, f.path)
		b.Queue(sqlInsertVectors, f.project, f.path, to.Model, int32(to.Dimensions), raw, encodeCodes(raw, to.Dimensions))
		b.Queue("UPDATE mcp_search_projects SET generation = generation + 1 WHERE id = $1", f.project)
		return tx.SendBatch(ctx, b).Close()
	})
	if errors.Is(err, errFileChanged) {
		return -1, nil
	}
	if err != nil {
		return 0, backendError(ctx, "storing re-embedded vectors", err)
	}
	return sf.chunks, nil
}
