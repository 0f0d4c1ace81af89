package commands

import (
	"fmt"
	"strings"
)

// opt is one parsed option: its key (the short letter, or the long name of an option
// without a short form) and its argument.
type opt struct {
	key string
	val string
}

// optSpec describes a command's options the way GNU getopt_long reads them.
//
// short lists the letters, each followed by ':' when it takes an argument (as in getopt).
// long lists long options as "name", "name=" (takes an argument) or "name?" (optional
// argument, attached with '=' only), optionally followed by "|x" when the long option is
// another spelling of the short option x.
type optSpec struct {
	short string
	long  []string
	// stopAtOperand: the first operand ends the options (POSIX order, as xargs and env);
	// otherwise options may follow operands (GNU permutation).
	stopAtOperand bool
}

type longOpt struct {
	name  string
	arg   byte // 0 none, '=' required, '?' optional
	alias string
}

func (s optSpec) longs() []longOpt {
	out := make([]longOpt, 0, len(s.long))
	for _, l := range s.long {
		lo := longOpt{}
		l, lo.alias, _ = strings.Cut(l, "|")
		if n := len(l); n > 0 && (l[n-1] == '=' || l[n-1] == '?') {
			lo.arg = l[n-1]
			l = l[:n-1]
		}
		lo.name = l
		out = append(out, lo)
	}
	return out
}

// usageError is an option the command does not know, or one missing its argument; its
// text is GNU's first line of the diagnostic.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// parse reads args (without the command name) and returns the options in order and the
// operands.
func (s optSpec) parse(args []string) ([]opt, []string, error) {
	var opts []opt
	var operands []string
	longs := s.longs()
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return opts, append(operands, args[i+1:]...), nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			lo, err := s.findLong(longs, name)
			if err != nil {
				return nil, nil, err
			}
			key := lo.name
			if lo.alias != "" {
				key = lo.alias
			}
			switch lo.arg {
			case 0:
				if hasVal {
					return nil, nil, &usageError{fmt.Sprintf("option '--%s' doesn't allow an argument", lo.name)}
				}
			case '=':
				if !hasVal {
					if i+1 >= len(args) {
						return nil, nil, &usageError{fmt.Sprintf("option '--%s' requires an argument", lo.name)}
					}
					i++
					val = args[i]
				}
			}
			opts = append(opts, opt{key, val})
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				c := a[j]
				k := strings.IndexByte(s.short, c)
				if k < 0 || c == ':' {
					return nil, nil, &usageError{fmt.Sprintf("invalid option -- '%c'", c)}
				}
				if k+1 < len(s.short) && s.short[k+1] == ':' {
					val := a[j+1:]
					if val == "" {
						if i+1 >= len(args) {
							return nil, nil, &usageError{fmt.Sprintf("option requires an argument -- '%c'", c)}
						}
						i++
						val = args[i]
					}
					opts = append(opts, opt{string(c), val})
					break
				}
				opts = append(opts, opt{string(c), ""})
			}
		default:
			if s.stopAtOperand {
				return opts, append(operands, args[i:]...), nil
			}
			operands = append(operands, a)
		}
	}
	return opts, operands, nil
}

func (s optSpec) findLong(longs []longOpt, name string) (longOpt, error) {
	var found []longOpt
	for _, lo := range longs {
		if lo.name == name {
			return lo, nil
		}
		if strings.HasPrefix(lo.name, name) {
			found = append(found, lo)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return longOpt{}, &usageError{fmt.Sprintf("unrecognized option '--%s'", name)}
	}
	return longOpt{}, &usageError{fmt.Sprintf("option '--%s' is ambiguous", name)}
}
