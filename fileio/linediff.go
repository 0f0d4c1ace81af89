package fileio

// lineDiffer computes a shortest edit script between two sequences of line ids with Myers'
// O(ND) algorithm in its linear-space form: it finds the middle snake of the script by
// searching from both ends at once, then recurses on the two halves. Memory is O(N+M)
// whatever D; time is O((N+M)·D), charged against a budget of steps.
type lineDiffer struct {
	a, b   []int
	vf, vb []int // furthest x per diagonal, forward and backward, reused by every level
	steps  int   // budget left; below zero the differ gives up
	ops    []diffOp
}

// diffLines returns an edit script turning a into b (deletions before insertions within each
// change), or ok false when it would take more than maxSteps steps.
func diffLines(a, b []int, maxSteps int) (ops []diffOp, ok bool) {
	n := 2*((len(a)+len(b)+1)/2) + 3
	d := &lineDiffer{a: a, b: b, vf: make([]int, n), vb: make([]int, n), steps: maxSteps,
		ops: make([]diffOp, 0, len(a)+len(b))}
	if !d.diff(0, len(a), 0, len(b)) {
		return nil, false
	}
	deletionsFirst(d.ops)
	return d.ops, true
}

func (d *lineDiffer) emit(op diffOp, n int) {
	for range n {
		d.ops = append(d.ops, op)
	}
}

// diff appends the script turning a[a0:a1] into b[b0:b1].
func (d *lineDiffer) diff(a0, a1, b0, b1 int) bool {
	head := 0
	for a0+head < a1 && b0+head < b1 && d.a[a0+head] == d.b[b0+head] {
		head++
	}
	d.emit(opEqual, head)
	a0, b0 = a0+head, b0+head
	tail := 0
	for a0 < a1-tail && b0 < b1-tail && d.a[a1-1-tail] == d.b[b1-1-tail] {
		tail++
	}
	a1, b1 = a1-tail, b1-tail
	d.steps -= head + tail
	switch {
	case a0 == a1:
		d.emit(opInsert, b1-b0)
	case b0 == b1:
		d.emit(opDelete, a1-a0)
	default:
		// Both sides are non-empty and differ at both ends, so D >= 2 and each half of the
		// split has a shorter script: the recursion ends.
		x, y, u, v, ok := d.middleSnake(a0, a1, b0, b1)
		if !ok || !d.diff(a0, x, b0, y) {
			return false
		}
		d.emit(opEqual, u-x)
		if !d.diff(u, a1, v, b1) {
			return false
		}
	}
	d.emit(opEqual, tail)
	return d.steps >= 0
}

// middleSnake returns the snake (x, y) → (u, v) in the middle of a shortest script turning
// a[a0:a1] into b[b0:b1]. Diagonal k of the forward search (x-y, from the start) is diagonal
// delta-k of the backward one (from the ends).
func (d *lineDiffer) middleSnake(a0, a1, b0, b1 int) (x, y, u, v int, ok bool) {
	n, m := a1-a0, b1-b0
	delta := n - m
	odd := delta&1 != 0
	maxD := (n + m + 1) / 2
	off := maxD + 1
	vf, vb := d.vf, d.vb
	vf[off+1], vb[off+1] = 0, 0
	for D := 0; D <= maxD; D++ {
		for k := -D; k <= D; k += 2 {
			var x int
			if k == -D || (k != D && vf[off+k-1] < vf[off+k+1]) {
				x = vf[off+k+1]
			} else {
				x = vf[off+k-1] + 1
			}
			y := x - k
			sx, sy := x, y
			for x < n && y < m && d.a[a0+x] == d.b[b0+y] {
				x, y = x+1, y+1
			}
			d.steps -= 1 + x - sx
			vf[off+k] = x
			if c := delta - k; odd && c >= -(D-1) && c <= D-1 && x+vb[off+c] >= n {
				return a0 + sx, b0 + sy, a0 + x, b0 + y, true
			}
		}
		for c := -D; c <= D; c += 2 {
			var x int
			if c == -D || (c != D && vb[off+c-1] < vb[off+c+1]) {
				x = vb[off+c+1]
			} else {
				x = vb[off+c-1] + 1
			}
			y := x - c
			sx, sy := x, y
			for x < n && y < m && d.a[a1-1-x] == d.b[b1-1-y] {
				x, y = x+1, y+1
			}
			d.steps -= 1 + x - sx
			vb[off+c] = x
			if k := delta - c; !odd && k >= -D && k <= D && vf[off+k]+x >= n {
				return a0 + n - x, b0 + m - y, a0 + n - sx, b0 + m - sy, true
			}
		}
		if d.steps < 0 {
			return 0, 0, 0, 0, false
		}
	}
	panic("fileio: no middle snake") // unreachable: a script of at most n+m steps exists
}

// deletionsFirst reorders each run of changes so that its deletions come before its
// insertions, as diff -u prints them; the script stays valid.
func deletionsFirst(ops []diffOp) {
	for i := 0; i < len(ops); {
		if ops[i] == opEqual {
			i++
			continue
		}
		j, dels := i, 0
		for ; j < len(ops) && ops[j] != opEqual; j++ {
			if ops[j] == opDelete {
				dels++
			}
		}
		for k := i; k < j; k++ {
			if k-i < dels {
				ops[k] = opDelete
			} else {
				ops[k] = opInsert
			}
		}
		i = j
	}
}
