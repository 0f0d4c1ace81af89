package memindex_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/memindex"
)

// prose returns about n bytes of English-like text: sentences of 6–25 words drawn from a Zipf
// distribution over 30,000 made-up words, the most frequent ranks being English function words,
// in paragraphs of 3–8 sentences.
func prose(r *rand.Rand, n int) string {
	function := strings.Fields("the of and to a in is that it was for on are as with his they at be this from have or by one had not but what all were when we there can an your which their said if do will each about how up out them then she many some so these would other into has more her two like him see time could no make than first been its who now people my made over did down only way find use may water long little very after words called just where most know")
	syll := []string{"ka", "lo", "mi", "ne", "ru", "ta", "shi", "vo", "ze", "pa", "qui", "dor", "len", "gar", "bis", "ent", "ion", "al", "er", "st"}
	vocab := append([]string(nil), function...)
	for len(vocab) < 30000 {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		vocab = append(vocab, b.String())
	}
	zipf := rand.NewZipf(r, 1.07, 3, uint64(len(vocab)-1))
	var b strings.Builder
	b.Grow(n + 256)
	for b.Len() < n {
		for s := 3 + r.IntN(6); s > 0; s-- {
			words := 6 + r.IntN(20)
			for w := range words {
				word := vocab[zipf.Uint64()]
				if w == 0 {
					word = strings.ToUpper(word[:1]) + word[1:]
				}
				b.WriteString(word)
				switch {
				case w == words-1:
					b.WriteString(". ")
				case r.IntN(12) == 0:
					b.WriteString(", ")
				default:
					b.WriteByte(' ')
				}
			}
		}
		b.WriteString("\n\n")
	}
	return b.String()[:n]
}

// heapInUse is the heap in use after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// rss is the process's resident set after returning freed memory to the OS (0 when
// /proc/self/status is not readable).
func rss() uint64 {
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkResidentMemory stores 50 files of 2 MiB of prose in a memstore and indexes them into
// a memindex as the Indexer does (default chunker, TermCounts, the default 256-dimension
// hashing embedder), then reports the heap in use after a collection (and the process RSS)
// divided by the text bytes: "store/text" with the files stored, "total/text" with the index
// built too, and "index/text" for the index alone. Run it with -benchtime 1x.
func BenchmarkResidentMemory(b *testing.B) {
	files, size := 50, 2<<20
	if testing.Short() {
		files = 10
	}
	for b.Loop() {
		r := rand.New(rand.NewPCG(21, 22))
		ctx := context.Background()
		scope := driver.Scope{Tenant: "t", Project: "p"}
		heap0, rss0 := heapInUse(), rss()
		store := memstore.New(memstore.Options{})
		var infos []driver.FileInfo
		for i := range files {
			c := prose(r, size)
			err := store.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
				info, err := tx.Put(ctx, fmt.Sprintf("/docs/f%02d.txt", i), []byte(c), driver.PutOptions{})
				infos = append(infos, info)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		heap1, rss1 := heapInUse(), rss()
		idx := memindex.New()
		emb := search.NewHashingEmbedder(search.DefaultHashingDimensions)
		chunker := search.NewChunker(search.ChunkerOptions{})
		chunks := 0
		for _, info := range infos {
			var content []byte
			err := store.View(ctx, scope, func(tx driver.ReadTx) error {
				f, err := tx.Get(ctx, info.Path)
				content = f.Content
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			parts := chunker.Split(string(content)) // as search.Indexer does
			doc := indexdriver.IndexedFile{Path: info.Path, FileUpdatedAt: info.UpdatedAt, Tokenizer: indexdriver.TokenizerName, EmbeddingModel: emb.Model()}
			texts := make([]string, len(parts))
			for i, c := range parts {
				texts[i] = c.Text
			}
			vecs, err := emb.Embed(ctx, texts)
			if err != nil {
				b.Fatal(err)
			}
			for i, c := range parts {
				terms, n := indexdriver.TermCounts(c.Text)
				doc.Chunks = append(doc.Chunks, indexdriver.IndexedChunk{Chunk: c, Terms: terms, ChunkTerms: n, Vector: vecs[i]})
			}
			if err := idx.ReplaceFile(ctx, scope, doc); err != nil {
				b.Fatal(err)
			}
			chunks += len(parts)
		}
		heap2, rss2 := heapInUse(), rss()
		text := float64(files * size)
		b.ReportMetric(float64(chunks), "chunks")
		b.ReportMetric(float64(heap1-heap0)/text, "store/text")
		b.ReportMetric(float64(heap2-heap1)/text, "index/text")
		b.ReportMetric(float64(heap2-heap0)/text, "total/text")
		b.ReportMetric(float64(rss1-rss0)/text, "rss-store/text")
		b.ReportMetric(float64(rss2-rss0)/text, "rss-total/text")
		runtime.KeepAlive(idx)
		runtime.KeepAlive(store)
	}
}
