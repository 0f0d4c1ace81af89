package shell

import (
	"fmt"
	"strings"

	"github.com/agentfiles/agentfiles"
	"mvdan.cc/sh/v3/syntax"
)

// How a script is changed before it runs.
//
// Background jobs (&) run in place: each would be a goroutine that no budget could count.
//
// Process substitution runs without the host. The interpreter would make a FIFO in a host
// directory and open any name of the FIFOs' form there straight on the host, which a script
// could use to write host files; so <(LIST) becomes $( { LIST; } | CAPTURE ), where CAPTURE is
// an internal command that keeps what LIST printed (within max_file_bytes, counted against
// the bytes a command may write) as the read-only file /dev/fd/N and prints that name, as bash
// does. LIST runs to its end before the command that reads it starts, which gives the same
// output for the ways agents use it (diff <(…) <(…), while read … done < <(…)), and an endless
// LIST is cut at max_file_bytes. >(…) is refused: pipe into the command, or tee into a file.
// The interpreter still gets a FIFO directory that does not exist, so that text it parses
// itself (trap, alias) cannot reach the host either: such a <(…) fails.

// rewrite changes file as above, and records the functions it declares in funcs.
func rewrite(file *syntax.File, captureName string, funcs func(string)) error {
	var err error
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			n.Background, n.Disown, n.Coprocess = false, false, false
		case *syntax.FuncDecl:
			if n.Name != nil {
				funcs(n.Name.Value)
			}
		case *syntax.Word:
			for i, part := range n.Parts {
				ps, ok := part.(*syntax.ProcSubst)
				if !ok {
					continue
				}
				if ps.Op != syntax.CmdIn {
					if err == nil {
						err = agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
							"line %d: file_shell does not run %s(…) process substitution; pipe into the command instead (cmd | tee file | other)", ps.Pos().Line(), ps.Op), "command")
					}
					continue
				}
				n.Parts[i] = &syntax.CmdSubst{Left: ps.OpPos, Right: ps.Rparen, Stmts: []*syntax.Stmt{{
					Position: ps.OpPos,
					Cmd: &syntax.BinaryCmd{Op: syntax.Pipe, OpPos: ps.OpPos,
						X: &syntax.Stmt{Position: ps.OpPos, Cmd: &syntax.Block{Lbrace: ps.OpPos, Rbrace: ps.Rparen, Stmts: ps.Stmts}},
						Y: &syntax.Stmt{Position: ps.OpPos, Cmd: &syntax.CallExpr{Args: []*syntax.Word{{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: ps.OpPos, ValueEnd: ps.OpPos, Value: captureName}}}}}},
					},
				}}}
			}
		}
		return true
	})
	return err
}

// parseScript parses bash text and rewrites it (see rewrite).
func parseScript(text, name, captureName string, funcs func(string)) (*syntax.File, error) {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), name)
	if err != nil {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, err.Error()+"; fix the command's syntax", "command")
	}
	if err := rewrite(file, captureName, funcs); err != nil {
		return nil, err
	}
	return file, nil
}

// rewriteText rewrites bash text that the interpreter will parse itself (eval's argument),
// and prints it back; text that does not parse is returned as it is, for eval to report.
func rewriteText(text, captureName string, funcs func(string)) (string, error) {
	file, err := parseScript(text, "", captureName, funcs)
	if err != nil {
		if agentfiles.ErrorCode(err) == agentfiles.CodeInvalidArgument && strings.Contains(err.Error(), "process substitution") {
			return "", err
		}
		return text, nil
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, file); err != nil {
		return text, nil
	}
	return b.String(), nil
}
