package indexdriver

// stopWords is the Snowball English stop-word list, every word of
// https://snowballstem.org/algorithms/english/stop.txt (the file of the Snowball project, BSD
// licence; also shipped by Lucene as analysis/snowball/english_stop.txt), in its order and
// grouping. The file's commented-out candidates ("will", "can", "may", "us", "one", …) are not
// stop words. Words are matched after lower-casing, with U+2019 read as an apostrophe.
var stopWords = makeSet(
	// pronouns
	"i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours",
	"yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself",
	"it", "its", "itself", "they", "them", "their", "theirs", "themselves",
	"what", "which", "who", "whom", "this", "that", "these", "those",
	// verb forms: be, have, do, auxiliaries
	"am", "is", "are", "was", "were", "be", "been", "being",
	"have", "has", "had", "having", "do", "does", "did", "doing",
	"would", "should", "could", "ought",
	// compound forms: pronoun + verb
	"i'm", "you're", "he's", "she's", "it's", "we're", "they're", "i've", "you've", "we've",
	"they've", "i'd", "you'd", "he'd", "she'd", "we'd", "they'd", "i'll", "you'll", "he'll",
	"she'll", "we'll", "they'll",
	// verb + negation, auxiliary + negation
	"isn't", "aren't", "wasn't", "weren't", "hasn't", "haven't", "hadn't", "doesn't", "don't",
	"didn't", "won't", "wouldn't", "shan't", "shouldn't", "can't", "cannot", "couldn't", "mustn't",
	// miscellaneous forms
	"let's", "that's", "who's", "what's", "here's", "there's", "when's", "where's", "why's", "how's",
	// articles
	"a", "an", "the",
	// the rest
	"and", "but", "if", "or", "because", "as", "until", "while",
	"of", "at", "by", "for", "with", "about", "against", "between", "into", "through", "during",
	"before", "after", "above", "below", "to", "from", "up", "down", "in", "out", "on", "off",
	"over", "under",
	"again", "further", "then", "once",
	"here", "there", "when", "where", "why", "how",
	"all", "any", "both", "each", "few", "more", "most", "other", "some", "such",
	"no", "nor", "not", "only", "own", "same", "so", "than", "too", "very",
)

func makeSet(words ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}

// IsStopWord reports whether the lower-cased word w is on the Snowball English stop-word list,
// the words [Tokenize] drops.
func IsStopWord(w string) bool {
	_, ok := stopWords[w]
	return ok
}
