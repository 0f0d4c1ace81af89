package globmatch

import (
	"fmt"
	"unicode/utf8"
)

// MaxAlternatives caps what a pattern's braces stand for: the number of brace-free
// patterns it would expand to ("{a,b}/{c,d,e}" stands for 6). The matcher never expands
// braces, so this bounds no cost of its own; it refuses patterns such as "{,}" repeated, which
// say nothing a shorter pattern does not.
const MaxAlternatives = 4096

// segmentProgram is one pattern segment compiled to a nondeterministic automaton over the
// characters of a path segment. Matching simulates every state at once, so its cost is at
// most len(insts) steps per character of the name: linear in pattern × name, whatever the
// stars and braces.
type segmentProgram struct {
	insts []segmentInst
}

type segmentOp uint8

const (
	opChar  segmentOp = iota // one character equal to r
	opAny                    // any one character ("?")
	opClass                  // one character of the class ("[...]")
	opSplit                  // go on at x and at y
	opJump                   // go on at x
	opMatch                  // the whole name matched
)

type segmentInst struct {
	op      segmentOp
	r       rune
	x, y    int
	class   [2]uint64 // opClass: the ASCII members
	negated bool      // opClass: every character but the members
}

func (in *segmentInst) accepts(r rune) bool {
	switch in.op {
	case opChar:
		return r == in.r
	case opAny:
		return true
	case opClass:
		member := r >= 0 && r < 128 && in.class[r>>6]&(1<<(r&63)) != 0
		return member != in.negated
	}
	return false
}

// compileSegment compiles one segment of a pattern ("**" inside it already reduced to "*").
// It returns the program and the number of brace-free segments the braces stand for (capped
// at MaxAlternatives+1).
func compileSegment(seg string) (*segmentProgram, int, error) {
	c := segmentCompiler{src: seg}
	alts, err := c.sequence(0)
	if err != nil {
		return nil, 0, err
	}
	if c.pos < len(seg) { // a "}" or "," closed a group that was never opened: impossible here
		return nil, 0, fmt.Errorf("unexpected %q at byte %d", seg[c.pos], c.pos)
	}
	c.emit(segmentInst{op: opMatch})
	return &segmentProgram{insts: c.insts}, alts, nil
}

type segmentCompiler struct {
	src   string
	pos   int
	insts []segmentInst
}

func (c *segmentCompiler) emit(in segmentInst) int {
	c.insts = append(c.insts, in)
	return len(c.insts) - 1
}

// sequence compiles the items from c.pos up to the end, or (depth > 0) up to the "," or "}"
// that ends an alternative, and returns how many alternatives it stands for.
func (c *segmentCompiler) sequence(depth int) (int, error) {
	alts := 1
	for c.pos < len(c.src) {
		ch := c.src[c.pos]
		switch {
		case depth > 0 && (ch == ',' || ch == '}'):
			return alts, nil
		case ch == '\\':
			if c.pos+1 == len(c.src) {
				return 0, fmt.Errorf(`segment %q ends with "\"; write "\\" for a backslash`, c.src)
			}
			r, n := utf8.DecodeRuneInString(c.src[c.pos+1:])
			c.emit(segmentInst{op: opChar, r: r})
			c.pos += 1 + n
		case ch == '*':
			// split(next, any) ; any ; jump split
			split := c.emit(segmentInst{op: opSplit})
			c.emit(segmentInst{op: opAny})
			c.emit(segmentInst{op: opJump, x: split})
			c.insts[split].x, c.insts[split].y = split+1, len(c.insts)
			c.pos++
		case ch == '?':
			c.emit(segmentInst{op: opAny})
			c.pos++
		case ch == '[':
			end, members, negated, err := parseClass(c.src, c.pos)
			if err != nil {
				return 0, err
			}
			in := segmentInst{op: opClass, negated: negated}
			for _, m := range members {
				in.class[m>>6] |= 1 << (m & 63)
			}
			c.emit(in)
			c.pos = end + 1
		case ch == '{':
			n, err := c.group(depth + 1)
			if err != nil {
				return 0, err
			}
			alts = min(alts*n, MaxAlternatives+1)
		default:
			r, n := utf8.DecodeRuneInString(c.src[c.pos:])
			c.emit(segmentInst{op: opChar, r: r})
			c.pos += n
		}
	}
	if depth > 0 {
		return 0, fmt.Errorf(`unclosed "{" in segment %q; close the group with "}" or escape the brace as "\{"`, c.src)
	}
	return alts, nil
}

// group compiles "{a,b,...}" starting at its "{": each alternative is a split away from the
// others, and all jump to what follows.
func (c *segmentCompiler) group(depth int) (int, error) {
	c.pos++ // "{"
	var jumps []int
	total := 0
	for {
		split := c.emit(segmentInst{op: opSplit})
		n, err := c.sequence(depth)
		if err != nil {
			return 0, err
		}
		total = min(total+n, MaxAlternatives+1)
		c.insts[split].x = split + 1
		if c.src[c.pos] == '}' {
			c.pos++
			// The last split has no other branch: make it go on at the next instruction twice.
			c.insts[split].y = split + 1
			break
		}
		c.pos++ // ","
		jumps = append(jumps, c.emit(segmentInst{op: opJump}))
		c.insts[split].y = len(c.insts)
	}
	for _, j := range jumps {
		c.insts[j].x = len(c.insts)
	}
	return total, nil
}

// match reports whether the program matches the whole name, and the steps it took (one per
// state visited per character).
func (p *segmentProgram) match(name string, sim *segmentSim) (bool, int) {
	sim.reset(len(p.insts))
	steps := 0
	cur, next := &sim.a, &sim.b
	steps += p.add(cur, 0)
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		i += n
		next.clear()
		for _, pc := range cur.dense {
			steps++
			if in := &p.insts[pc]; in.accepts(r) {
				steps += p.add(next, pc+1)
			}
		}
		cur, next = next, cur
		if len(cur.dense) == 0 {
			return false, steps
		}
	}
	for _, pc := range cur.dense {
		if p.insts[pc].op == opMatch {
			return true, steps
		}
	}
	return false, steps
}

// add puts pc and every state it reaches without a character into set (character-consuming
// and match states only), and returns the states visited.
func (p *segmentProgram) add(set *stateSet, pc int) int {
	if set.has(pc) {
		return 0
	}
	set.mark(pc)
	switch in := &p.insts[pc]; in.op {
	case opSplit:
		return 1 + p.add(set, in.x) + p.add(set, in.y)
	case opJump:
		return 1 + p.add(set, in.x)
	}
	set.dense = append(set.dense, pc)
	return 1
}

// segmentSim is the scratch space of one simulation, reused across segments of one Match.
type segmentSim struct{ a, b stateSet }

func (s *segmentSim) reset(n int) { s.a.init(n); s.b.init(n) }

// stateSet is a set of program counters: dense in insertion order, seen marks membership.
type stateSet struct {
	dense []int
	seen  []uint32
	gen   uint32
}

func (s *stateSet) init(n int) {
	if cap(s.seen) < n {
		s.seen = make([]uint32, n)
		s.gen = 0
	}
	s.seen = s.seen[:n]
	s.clear()
}

func (s *stateSet) clear() {
	s.dense = s.dense[:0]
	s.gen++
	if s.gen == 0 { // wrapped: forget every old mark
		clear(s.seen)
		s.gen = 1
	}
}

func (s *stateSet) has(pc int) bool { return s.seen[pc] == s.gen }
func (s *stateSet) mark(pc int)     { s.seen[pc] = s.gen }
