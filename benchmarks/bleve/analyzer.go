package blevebench

import (
	"fmt"

	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
)

// Analyzer turns text into index terms. Both engines accept either analyzer: bleve through its
// analyzer registry, memindex through the term counts it is given. The zero value is not
// useful; use [AgentfilesAnalyzer] or [BleveEnglishAnalyzer]. It is safe for concurrent use.
type Analyzer struct {
	name   string                             // bleve registry name
	counts func(string) (map[string]int, int) // term frequencies and document length
	terms  func(string) []string              // distinct query terms, first occurrence first
}

// Name is the analyzer's name in bleve's registry.
func (a Analyzer) Name() string { return a.name }

// agentfilesAnalyzerName registers indexdriver.Tokenize with bleve under this name.
const agentfilesAnalyzerName = "agentfiles"

// AgentfilesAnalyzer is indexdriver.Tokenize (indexdriver.TokenizerName): Unicode letter/digit runs, lower
// case, Snowball English stop words, Snowball English stemmer on ASCII words.
var AgentfilesAnalyzer = Analyzer{name: agentfilesAnalyzerName, counts: indexdriver.TermCounts, terms: indexdriver.QueryTerms}

// BleveEnglishAnalyzer is bleve's "en" analyzer: Unicode word segmentation, possessive "'s"
// removed, lower case, bleve's English stop words, Porter stemmer.
var BleveEnglishAnalyzer = Analyzer{name: en.AnalyzerName, counts: bleveENCounts, terms: bleveENQueryTerms}

func init() {
	err := registry.RegisterAnalyzer(agentfilesAnalyzerName, func(map[string]any, *registry.Cache) (analysis.Analyzer, error) {
		return tokenizeAnalyzer{}, nil
	})
	if err != nil {
		panic(fmt.Sprintf("blevebench: register analyzer %q: %v", agentfilesAnalyzerName, err))
	}
	a, err := registry.NewCache().AnalyzerNamed(en.AnalyzerName)
	if err != nil {
		panic(fmt.Sprintf("blevebench: bleve analyzer %q: %v", en.AnalyzerName, err))
	}
	bleveEN = a
}

// tokenizeAnalyzer is indexdriver.Tokenize as a bleve analyzer. Offsets are left zero: the field
// stores no term vectors, so bleve never reads them.
type tokenizeAnalyzer struct{}

func (tokenizeAnalyzer) Analyze(text []byte) analysis.TokenStream {
	terms := indexdriver.Tokenize(string(text))
	tokens := make([]analysis.Token, len(terms))
	stream := make(analysis.TokenStream, len(terms))
	for i, t := range terms {
		tokens[i] = analysis.Token{Term: []byte(t), Position: i + 1, Type: analysis.AlphaNumeric}
		stream[i] = &tokens[i]
	}
	return stream
}

// bleveEN is bleve's "en" analyzer; bleve's analyzers are safe for concurrent use.
var bleveEN analysis.Analyzer

func bleveENCounts(text string) (map[string]int, int) {
	counts := make(map[string]int)
	stream := bleveEN.Analyze([]byte(text))
	for _, tok := range stream {
		counts[string(tok.Term)]++
	}
	return counts, len(stream)
}

func bleveENQueryTerms(query string) []string {
	var out []string
	seen := make(map[string]bool)
	for _, tok := range bleveEN.Analyze([]byte(query)) {
		if t := string(tok.Term); !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
