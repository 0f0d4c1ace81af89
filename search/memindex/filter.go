package memindex

import "strings"

// slotFilter is the set of slots a query may return, resolved once per query from its
// PathPrefix and ExcludePaths so the inner loops test a bit instead of comparing paths.
type slotFilter struct {
	bits  []uint64 // nil: every slot is allowed
	allow bool     // bits lists the allowed slots; otherwise it lists the excluded ones
}

// filter resolves prefix and exclude; the caller holds p.mu. A prefix costs one pass over the
// project's files; exclusions alone cost one lookup per excluded path.
func (p *project) filter(prefix string, exclude map[string]bool) slotFilter {
	words := (len(p.slots) + 63) / 64
	if prefix != "" {
		f := slotFilter{allow: true, bits: make([]uint64, words)}
		for path, fl := range p.files {
			if strings.HasPrefix(path, prefix) && !exclude[path] {
				for _, id := range fl.slots {
					f.bits[id/64] |= 1 << (id % 64)
				}
			}
		}
		return f
	}
	var f slotFilter
	for path, excluded := range exclude {
		fl := p.files[path]
		if !excluded || fl == nil {
			continue
		}
		if f.bits == nil {
			f.bits = make([]uint64, words)
		}
		for _, id := range fl.slots {
			f.bits[id/64] |= 1 << (id % 64)
		}
	}
	return f
}

// ok reports whether slot id may be returned.
func (f slotFilter) ok(id int32) bool {
	return f.bits == nil || (f.bits[id/64]&(1<<(id%64)) != 0) == f.allow
}

// word returns the allowed slots 64w … 64w+63 as bits.
func (f slotFilter) word(w int) uint64 {
	switch {
	case f.bits == nil:
		return ^uint64(0)
	case w >= len(f.bits):
		return 0
	case f.allow:
		return f.bits[w]
	default:
		return ^f.bits[w]
	}
}

// setBit sets bit id, growing b as needed.
func setBit(b *[]uint64, id int32) {
	w := int(id) / 64
	for len(*b) <= w {
		*b = append(*b, 0)
	}
	(*b)[w] |= 1 << (id % 64)
}

// hasBit reports whether bit id is set.
func hasBit(b []uint64, id int32) bool {
	w := int(id) / 64
	return w < len(b) && b[w]&(1<<(id%64)) != 0
}

// clearBit clears bit id (a bit past the end is already clear).
func clearBit(b []uint64, id int32) {
	if w := int(id) / 64; w < len(b) {
		b[w] &^= 1 << (id % 64)
	}
}
