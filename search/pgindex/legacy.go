package pgindex

import (
	"context"
	"fmt"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// convertLegacy moves the files indexed before migration 0005 (a row per chunk in
// mcp_file_chunks, a row per posting in mcp_file_chunk_postings, a row per vector in
// mcp_file_chunk_embeddings) to the compact form, file by file through ReplaceFile's write at
// the same version, with the terms, offsets and hashes they had, so nothing is analysed again
// (migration 0005 already moved their vectors, so nothing is embedded again either); then it
// drops the old tables. It runs under the schema lock, so one process
// converts while the others starting at the same time wait. A conversion interrupted half way
// resumes at the next start: every converted file is committed on its own.
func (ix *Index) convertLegacy(ctx context.Context) error {
	var exists bool
	if err := ix.pool.QueryRow(ctx, "SELECT to_regclass('mcp_file_chunks') IS NOT NULL").Scan(&exists); err != nil {
		return fmt.Errorf("pgindex: looking for the tables of schema version 4: %w", err)
	}
	if !exists {
		return nil
	}
	err := schema.WithLock(ctx, ix.given, func(conn *pgxpool.Conn) error {
		converted := 0
		for {
			files, err := legacyFiles(ctx, conn)
			if err != nil || len(files) == 0 {
				if err == nil {
					_, err = conn.Exec(ctx, "DROP TABLE IF EXISTS mcp_file_chunk_postings, mcp_file_chunk_embeddings, mcp_file_chunks")
					if converted > 0 {
						ix.log.Info("pgindex converted the files of schema version 4 to compact storage", "files", converted)
					}
				}
				return err
			}
			for _, lf := range files {
				f, err := readLegacyFile(ctx, conn, lf)
				if err != nil {
					return err
				}
				if err := ix.replaceFile(ctx, lf.scope, f, 0, true); err != nil {
					return err
				}
				converted++
			}
		}
	})
	if err != nil {
		return fmt.Errorf("pgindex: converting the files indexed by schema version 4: %w", err)
	}
	return nil
}

type legacyRow struct {
	project   int64
	scope     driver.Scope
	path      string
	version   time.Time
	model     string
	tokenizer string
}

func legacyFiles(ctx context.Context, conn *pgxpool.Conn) ([]legacyRow, error) {
	rows, err := conn.Query(ctx, `SELECT f.project_id, pr.apikey_hash, pr.project, f.file_path, f.file_updated_at, f.file_updated_ns,
       f.embedding_model, f.tokenizer
FROM mcp_search_files f JOIN mcp_search_projects pr ON pr.id = f.project_id WHERE f.legacy LIMIT 500`)
	if err != nil {
		return nil, err
	}
	var out []legacyRow
	var f legacyRow
	var at time.Time
	var ns int32
	_, err = pgx.ForEachRow(rows, []any{&f.project, &f.scope.Tenant, &f.scope.Project, &f.path, &at, &ns, &f.model, &f.tokenizer}, func() error {
		f.version = joinVersion(at, ns)
		out = append(out, f)
		return nil
	})
	return out, err
}

// readLegacyFile rebuilds the IndexedFile a legacy file was indexed from, without its text and
// its vectors (migration 0005 moved those to mcp_search_vectors).
func readLegacyFile(ctx context.Context, conn *pgxpool.Conn, lf legacyRow) (indexdriver.IndexedFile, error) {
	f := indexdriver.IndexedFile{Path: lf.path, FileUpdatedAt: lf.version, Tokenizer: lf.tokenizer, EmbeddingModel: lf.model}
	rows, err := conn.Query(ctx, `SELECT id, start_byte, end_byte, content_hash, chunk_terms FROM mcp_file_chunks
WHERE project_id = $1 AND file_path = $2 ORDER BY chunk_index`, lf.project, lf.path)
	if err != nil {
		return f, err
	}
	byID := make(map[int64]int)
	var ids []int64
	var id int64
	var c indexdriver.IndexedChunk
	var terms int32
	if _, err := pgx.ForEachRow(rows, []any{&id, &c.StartByte, &c.EndByte, &c.ContentHash, &terms}, func() error {
		c.Index, c.ChunkTerms, c.Terms = len(f.Chunks), int(terms), make(map[string]int)
		byID[id] = len(f.Chunks)
		ids = append(ids, id)
		f.Chunks = append(f.Chunks, c)
		return nil
	}); err != nil {
		return f, err
	}
	rows, err = conn.Query(ctx, "SELECT chunk_id, term, tf FROM mcp_file_chunk_postings WHERE chunk_id = ANY($1)", ids)
	if err != nil {
		return f, err
	}
	var term string
	var tf int32
	if _, err := pgx.ForEachRow(rows, []any{&id, &term, &tf}, func() error {
		f.Chunks[byID[id]].Terms[term] = int(tf)
		return nil
	}); err != nil {
		return f, err
	}
	return f, nil
}
