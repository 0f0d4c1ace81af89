package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// pendingBatch is a batch of statements sent to PostgreSQL whose results are not read yet.
type pendingBatch struct {
	ctx     context.Context
	op      string
	br      pgx.BatchResults
	n       int                  // statements sent
	scanned int                  // the statement whose rows scan reads
	scan    func(pgx.Rows) error // called for each row of statement scanned
	done    func()               // called once every statement succeeded
}

// batch sends statements of the open transaction in one round trip and returns without
// waiting for their results, so that PostgreSQL runs them while the caller prepares its next
// batch (an import reads and hashes its next files). settle reads the results: it calls scan
// for each row of stmts[scanned], discards the rows of the others, and calls done once all
// succeeded. Every later use of the session settles first (the next batch, query, commit,
// abort), so at most one batch is in flight, and a failure is remembered as by query and
// returned by that later call.
func (x *session) batch(ctx context.Context, op string, stmts []stmt, scanned int, scan func(pgx.Rows) error, done func()) error {
	if x.settle(); x.failed != nil {
		return x.failed
	}
	if x.begin != nil { // the transaction is not open yet: send its first statements with these
		scanned += len(x.begin)
		stmts, x.begin = append(x.begin, stmts...), nil
		x.started = true
	}
	b := &pgx.Batch{}
	for _, st := range stmts {
		b.Queue(st.sql, st.args...)
	}
	x.pending = &pendingBatch{ctx: ctx, op: op, br: x.conn.Conn().SendBatch(ctx, b), n: len(stmts), scanned: scanned, scan: scan, done: done}
	return nil
}

// settle reads the results of the batch in flight, if any (see batch).
func (x *session) settle() {
	p := x.pending
	if p == nil {
		return
	}
	x.pending = nil
	var err error
	for i := range p.n {
		if i == p.scanned {
			var rows pgx.Rows
			if rows, err = p.br.Query(); err == nil {
				err = scanRows(rows, p.scan)
			}
		} else {
			_, err = p.br.Exec()
		}
		if err != nil {
			break
		}
	}
	if cerr := p.br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		x.failed = x.storeError(p.ctx, p.op, err)
		return
	}
	if p.done != nil {
		p.done()
	}
}
