package commands

import (
	"context"
	"math"
)

// GNU diff's way of finding the changes between two files (diffutils' analyze.c and
// gnulib's diffseq.h, rewritten): lines that match nothing in the other file are set aside
// first, a divide-and-conquer search for the middle snake finds a shortest edit script of the
// rest, and runs of changes are then slid to where GNU puts them. Where several shortest
// scripts exist, this picks the one GNU diff prints.

// diffChanges returns, for each line of a and of b, whether it is deleted or inserted.
// As GNU diff, the lines the files share at their start and end are left out of the search,
// but for horizon of them next to the differences (the context lines the output shows).
func diffChanges(ctx context.Context, a, b []diffLine, horizon int) (changedA, changedB []bool) {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre].key == b[pre].key {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf].key == b[len(b)-1-suf].key {
		suf++
	}
	lo := pre - min(pre, horizon)
	hiA, hiB := len(a)-suf+min(suf, horizon), len(b)-suf+min(suf, horizon)
	changedA, changedB = make([]bool, len(a)), make([]bool, len(b))
	ca, cb := analyze(ctx, a[lo:hiA], b[lo:hiB])
	copy(changedA[lo:], ca)
	copy(changedB[lo:], cb)
	return changedA, changedB
}

func analyze(ctx context.Context, a, b []diffLine) (changedA, changedB []bool) {
	// Equivalence classes from 1; 0 is unused, as in GNU diff.
	classes := map[string]int{}
	equivs := func(lines []diffLine) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			c, ok := classes[l.key]
			if !ok {
				c = len(classes) + 1
				classes[l.key] = c
			}
			out[i] = c
		}
		return out
	}
	eq := [2][]int{equivs(a), equivs(b)}
	// changed[f] has a false sentinel before and after the lines (index -1 and len).
	changedBuf := [2][]bool{make([]bool, len(a)+2), make([]bool, len(b)+2)}
	changed := func(f, i int) *bool { return &changedBuf[f][i+1] }

	// Set aside the lines that match nothing in the other file (and, in runs of those, the
	// lines that match very many).
	counts := [2][]int{make([]int, len(classes)+1), make([]int, len(classes)+1)}
	for f := 0; f < 2; f++ {
		for _, c := range eq[f] {
			counts[f][c]++
		}
	}
	var undiscarded, realIndex [2][]int
	for f := 0; f < 2; f++ {
		discards := discardable(eq[f], counts[1-f])
		for i, c := range eq[f] {
			if discards[i] == 0 {
				undiscarded[f] = append(undiscarded[f], c)
				realIndex[f] = append(realIndex[f], i)
			} else {
				*changed(f, i) = true
			}
		}
	}

	d := &diffSeq{
		ctx: ctx, xv: undiscarded[0], yv: undiscarded[1],
		noteDelete: func(x int) { *changed(0, realIndex[0][x]) = true },
		noteInsert: func(y int) { *changed(1, realIndex[1][y]) = true },
	}
	n, m := len(d.xv), len(d.yv)
	d.fd = make([]int, n+m+3)
	d.bd = make([]int, n+m+3)
	d.off = m + 1
	diags := n + m + 3
	d.tooExpensive = 1
	for ; diags != 0; diags >>= 2 {
		d.tooExpensive <<= 1
	}
	d.tooExpensive = max(4096, d.tooExpensive)
	d.compareseq(0, n, 0, m, false)

	shiftBoundaries(eq, changedBuf)
	return changedBuf[0][1 : len(a)+1], changedBuf[1][1 : len(b)+1]
}

// discardable marks the lines of one file (by class) that match no line of the other (1),
// or many (2, provisionally), and keeps provisional marks only inside runs of discards, as
// diffutils' discard_confusing_lines.
func discardable(equivs []int, otherCounts []int) []byte {
	end := len(equivs)
	discards := make([]byte, end)
	many := 5
	for tem := end / 64; ; {
		tem >>= 2
		if tem <= 0 {
			break
		}
		many *= 2
	}
	for i, c := range equivs {
		switch nmatch := otherCounts[c]; {
		case nmatch == 0:
			discards[i] = 1
		case nmatch > many:
			discards[i] = 2
		}
	}
	for i := 0; i < end; i++ {
		if discards[i] == 2 {
			discards[i] = 0
			continue
		}
		if discards[i] == 0 {
			continue
		}
		// A run of discardable lines starting with a non-provisional one.
		j := i
		provisional := 0
		for ; j < end && discards[j] != 0; j++ {
			if discards[j] == 2 {
				provisional++
			}
		}
		for j > i && discards[j-1] == 2 {
			j--
			discards[j] = 0
			provisional--
		}
		length := j - i
		if provisional*4 > length {
			for j > i {
				j--
				if discards[j] == 2 {
					discards[j] = 0
				}
			}
		} else {
			minimum := 1
			for tem := length >> 2; ; {
				tem >>= 2
				if tem <= 0 {
					break
				}
				minimum <<= 1
			}
			minimum++
			consec := 0
			for j = 0; j < length; j++ {
				switch {
				case discards[i+j] != 2:
					consec = 0
				default:
					consec++
					if consec == minimum {
						j -= consec
					} else if consec > minimum {
						discards[i+j] = 0
					}
				}
			}
			consec = 0
			for j = 0; j < length; j++ {
				if j >= 8 && discards[i+j] == 1 {
					break
				}
				switch discards[i+j] {
				case 2:
					consec = 0
					discards[i+j] = 0
				case 0:
					consec = 0
				default:
					consec++
				}
				if consec == 3 {
					break
				}
			}
			i += length - 1
			consec = 0
			for j = 0; j < length; j++ {
				if j >= 8 && discards[i-j] == 1 {
					break
				}
				switch discards[i-j] {
				case 2:
					consec = 0
					discards[i-j] = 0
				case 0:
					consec = 0
				default:
					consec++
				}
				if consec == 3 {
					break
				}
			}
		}
	}
	return discards
}

// diffSeq is the middle-snake search over two sequences of classes.
type diffSeq struct {
	ctx                    context.Context
	xv, yv                 []int
	fd, bd                 []int // furthest x per diagonal, indexed by diagonal + off
	off                    int
	tooExpensive           int
	noteDelete, noteInsert func(int)
	steps                  int
}

type diffPartition struct {
	xmid, ymid           int
	loMinimal, hiMinimal bool
}

// diag finds the midpoint of a shortest edit script of xv[xoff:xlim] and yv[yoff:ylim].
func (d *diffSeq) diag(xoff, xlim, yoff, ylim int, findMinimal bool) diffPartition {
	fd := func(k int) *int { return &d.fd[k+d.off] }
	bd := func(k int) *int { return &d.bd[k+d.off] }
	dmin, dmax := xoff-ylim, xlim-yoff
	fmid, bmid := xoff-yoff, xlim-ylim
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	odd := (fmid-bmid)&1 != 0
	*fd(fmid) = xoff
	*bd(bmid) = xlim
	for c := 1; ; c++ {
		if d.steps++; d.steps&255 == 0 && d.ctx.Err() != nil {
			return diffPartition{xmid: xoff, ymid: yoff}
		}
		// Extend the forward search by one edit.
		if fmin > dmin {
			fmin--
			*fd(fmin - 1) = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			*fd(fmax + 1) = -1
		} else {
			fmax--
		}
		for k := fmax; k >= fmin; k -= 2 {
			tlo, thi := *fd(k - 1), *fd(k + 1)
			x0 := thi
			if tlo >= thi {
				x0 = tlo + 1
			}
			x, y := x0, x0-k
			for x < xlim && y < ylim && d.xv[x] == d.yv[y] {
				x++
				y++
			}
			*fd(k) = x
			if odd && bmin <= k && k <= bmax && *bd(k) <= x {
				return diffPartition{xmid: x, ymid: y, loMinimal: true, hiMinimal: true}
			}
		}
		// And the backward search.
		if bmin > dmin {
			bmin--
			*bd(bmin - 1) = math.MaxInt
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			*bd(bmax + 1) = math.MaxInt
		} else {
			bmax--
		}
		for k := bmax; k >= bmin; k -= 2 {
			tlo, thi := *bd(k - 1), *bd(k + 1)
			x0 := thi - 1
			if tlo < thi {
				x0 = tlo
			}
			x, y := x0, x0-k
			for xoff < x && yoff < y && d.xv[x-1] == d.yv[y-1] {
				x--
				y--
			}
			*bd(k) = x
			if !odd && fmin <= k && k <= fmax && x <= *fd(k) {
				return diffPartition{xmid: x, ymid: y, loMinimal: true, hiMinimal: true}
			}
		}
		if findMinimal || c < d.tooExpensive {
			continue
		}
		// Gone well beyond the call of duty: halfway between the best results so far.
		fxybest, fxbest := -1, 0
		for k := fmax; k >= fmin; k -= 2 {
			x := min(*fd(k), xlim)
			y := x - k
			if ylim < y {
				x, y = ylim+k, ylim
			}
			if fxybest < x+y {
				fxybest, fxbest = x+y, x
			}
		}
		bxybest, bxbest := math.MaxInt, 0
		for k := bmax; k >= bmin; k -= 2 {
			x := max(xoff, *bd(k))
			y := x - k
			if y < yoff {
				x, y = yoff+k, yoff
			}
			if x+y < bxybest {
				bxybest, bxbest = x+y, x
			}
		}
		if (xlim+ylim)-bxybest < fxybest-(xoff+yoff) {
			return diffPartition{xmid: fxbest, ymid: fxybest - fxbest, loMinimal: true}
		}
		return diffPartition{xmid: bxbest, ymid: bxybest - bxbest, hiMinimal: true}
	}
}

// compareseq notes the changes between xv[xoff:xlim] and yv[yoff:ylim].
func (d *diffSeq) compareseq(xoff, xlim, yoff, ylim int, findMinimal bool) {
	for xoff < xlim && yoff < ylim && d.xv[xoff] == d.yv[yoff] {
		xoff++
		yoff++
	}
	for xoff < xlim && yoff < ylim && d.xv[xlim-1] == d.yv[ylim-1] {
		xlim--
		ylim--
	}
	switch {
	case xoff == xlim:
		for ; yoff < ylim; yoff++ {
			d.noteInsert(yoff)
		}
	case yoff == ylim:
		for ; xoff < xlim; xoff++ {
			d.noteDelete(xoff)
		}
	default:
		if d.ctx.Err() != nil {
			for ; xoff < xlim; xoff++ {
				d.noteDelete(xoff)
			}
			for ; yoff < ylim; yoff++ {
				d.noteInsert(yoff)
			}
			return
		}
		p := d.diag(xoff, xlim, yoff, ylim, findMinimal)
		d.compareseq(xoff, p.xmid, yoff, p.ymid, p.loMinimal)
		d.compareseq(p.xmid, xlim, p.ymid, ylim, p.hiMinimal)
	}
}

// shiftBoundaries slides each run of changes as diffutils does: back while the line before
// it equals its last line (merging with earlier runs), then forward while its first line
// equals the line after it, then back to line up with a run of the other file.
// changed[f] holds a false sentinel at each end.
func shiftBoundaries(equivs [2][]int, changed [2][]bool) {
	for f := 0; f < 2; f++ {
		ch := func(i int) *bool { return &changed[f][i+1] }
		other := func(j int) bool { return changed[1-f][j+1] }
		eq := equivs[f]
		iEnd := len(eq)
		i, j := 0, 0
		for {
			for i < iEnd && !*ch(i) {
				for other(j) {
					j++
				}
				j++
				i++
			}
			if i == iEnd {
				break
			}
			start := i
			for i++; *ch(i); i++ {
			}
			for other(j) {
				j++
			}
			var runlength, corresponding int
			for {
				runlength = i - start
				for start > 0 && eq[start-1] == eq[i-1] {
					start--
					*ch(start) = true
					i--
					*ch(i) = false
					for *ch(start - 1) {
						start--
					}
					for {
						j--
						if !other(j) {
							break
						}
					}
				}
				corresponding = iEnd
				if other(j - 1) {
					corresponding = i
				}
				for i != iEnd && eq[start] == eq[i] {
					*ch(start) = false
					start++
					*ch(i) = true
					i++
					for *ch(i) {
						i++
					}
					for {
						j++
						if !other(j) {
							break
						}
						corresponding = i
					}
				}
				if runlength == i-start {
					break
				}
			}
			for corresponding < i {
				start--
				*ch(start) = true
				i--
				*ch(i) = false
				for {
					j--
					if !other(j) {
						break
					}
				}
			}
		}
	}
}
