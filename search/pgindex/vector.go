package pgindex

import (
	"context"
	"encoding/binary"
	"math"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// encodeVector is the portable storage form of a vector: little-endian IEEE-754 float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVectorInto fills dst (len(b)/4 long) from the storage form.
func decodeVectorInto(dst []float32, b []byte) {
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// vectorLiteral is pgvector's text form "[x,y,...]"; every float32 round-trips exactly.
func vectorLiteral(v []float32) string {
	b := make([]byte, 0, 2+len(v)*12)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	}
	return string(append(b, ']'))
}

// backfillVectors fills embedding_vec for rows written while pgvector was not used.
func backfillVectors(ctx context.Context, conn *pgxpool.Conn) error {
	for {
		var ids []int64
		var lits []string
		rows, err := conn.Query(ctx, "SELECT chunk_id, embedding FROM mcp_file_chunk_embeddings WHERE embedding_vec IS NULL LIMIT 1000")
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var raw []byte
			if err := rows.Scan(&id, &raw); err != nil {
				rows.Close()
				return err
			}
			v := make([]float32, len(raw)/4)
			decodeVectorInto(v, raw)
			ids, lits = append(ids, id), append(lits, vectorLiteral(v))
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		if _, err := conn.Exec(ctx, `UPDATE mcp_file_chunk_embeddings e SET embedding_vec = u.v::vector, updated_at = $3
			FROM unnest($1::bigint[], $2::text[]) AS u(id, v) WHERE e.chunk_id = u.id`, ids, lits, time.Now()); err != nil {
			return err
		}
	}
}
