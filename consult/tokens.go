package consult

import "unicode/utf8"

// Tokens is a count of model tokens. It is never a count of bytes or characters.
type Tokens int64

// TokenCounter counts the tokens a model would see for a text. Implementations must be safe for
// concurrent use. Plug in a real tokenizer for exact budgets; the package default is
// [EstimateCounter], which only estimates.
type TokenCounter interface {
	CountTokens(text string) Tokens
}

// EstimateCounter is the default [TokenCounter]. It is an ESTIMATE, not a tokenizer: about four
// bytes of ASCII per token, and one token per non-ASCII character (CJK, emoji), which errs on the
// high side for most models. It is safe for concurrent use.
type EstimateCounter struct{}

// CountTokens returns the estimated token count of text.
func (EstimateCounter) CountTokens(text string) Tokens {
	var ascii, other int64
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		other++
		i += size
	}
	return Tokens((ascii+3)/4 + other)
}
