package commands

// fnmatch reports whether name matches the shell pattern pat, as fnmatch(3): * and ? match
// any byte ('/' too unless pathname), [...] a set ([!...] or [^...] its complement, ranges,
// [:class:]), and a backslash quotes the next byte. With pathname, '/' in name is matched
// only by '/' in pat. Matching keeps one backtracking point per star, so it is linear in
// len(pat)·len(name) at worst.
func fnmatch(pat, name string, pathname bool) bool {
	px, nx := 0, 0
	starPx, starNx := -1, -1
	for nx < len(name) || px < len(pat) {
		if px < len(pat) {
			switch c := pat[px]; c {
			case '*':
				starPx, starNx = px, nx
				px++
				continue
			case '?':
				if nx < len(name) && !(pathname && name[nx] == '/') {
					px++
					nx++
					continue
				}
			case '[':
				if nx < len(name) && !(pathname && name[nx] == '/') {
					if ok, width := matchSet(pat[px:], name[nx]); width > 0 {
						if ok {
							px += width
							nx++
							continue
						}
						break
					}
				}
				if nx < len(name) && name[nx] == '[' {
					px++
					nx++
					continue
				}
			case '\\':
				if px+1 < len(pat) {
					if nx < len(name) && name[nx] == pat[px+1] {
						px += 2
						nx++
						continue
					}
					break
				}
				fallthrough
			default:
				if nx < len(name) && name[nx] == c {
					px++
					nx++
					continue
				}
			}
		}
		if starPx >= 0 && starNx < len(name) && !(pathname && name[starNx] == '/') {
			starNx++
			px, nx = starPx+1, starNx
			continue
		}
		return false
	}
	return true
}

// matchSet matches b against the bracket expression at the start of pat; width is the
// expression's length (0 when pat has no closing ']': then '[' is literal).
func matchSet(pat string, b byte) (ok bool, width int) {
	i := 1
	negate := false
	if i < len(pat) && (pat[i] == '!' || pat[i] == '^') {
		negate = true
		i++
	}
	matched := false
	first := true
	for i < len(pat) {
		c := pat[i]
		if c == ']' && !first {
			return matched != negate, i + 1
		}
		first = false
		if c == '[' && i+1 < len(pat) && pat[i+1] == ':' {
			end := indexFrom(pat, ":]", i+2)
			if end > 0 {
				if classMatch(pat[i+2:end], b) {
					matched = true
				}
				i = end + 2
				continue
			}
		}
		if c == '\\' && i+1 < len(pat) {
			i++
			c = pat[i]
		}
		lo := c
		i++
		if i+1 < len(pat) && pat[i] == '-' && pat[i+1] != ']' {
			hi := pat[i+1]
			i += 2
			if hi == '\\' && i < len(pat) {
				hi = pat[i]
				i++
			}
			if lo <= b && b <= hi {
				matched = true
			}
			continue
		}
		if b == lo {
			matched = true
		}
	}
	return false, 0
}

func indexFrom(s, sub string, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func classMatch(class string, b byte) bool {
	isUpper, isLower, isDigit := b >= 'A' && b <= 'Z', b >= 'a' && b <= 'z', b >= '0' && b <= '9'
	switch class {
	case "alpha":
		return isUpper || isLower
	case "digit":
		return isDigit
	case "alnum":
		return isUpper || isLower || isDigit
	case "upper":
		return isUpper
	case "lower":
		return isLower
	case "space":
		return b == ' ' || (b >= '\t' && b <= '\r')
	case "blank":
		return b == ' ' || b == '\t'
	case "punct":
		return b > 0x20 && b < 0x7f && !(isUpper || isLower || isDigit)
	case "print":
		return b >= 0x20 && b < 0x7f
	case "graph":
		return b > 0x20 && b < 0x7f
	case "cntrl":
		return b < 0x20 || b == 0x7f
	case "xdigit":
		return isDigit || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F')
	}
	return false
}
