package quality

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Doc is one document of a collection.
type Doc struct {
	ID    string
	Title string
	Text  string // the contents that are indexed
}

// Topic is one query with its graded judgements (unlisted documents are grade 0).
type Topic struct {
	ID    string
	Query string
	Qrels map[string]int // document ID -> grade
}

// Collection is a test collection: documents and judged topics. Topics without any relevant
// document are dropped at load, as trec_eval evaluates only topics present in the qrels.
type Collection struct {
	Name   string
	Docs   []Doc
	Topics []Topic
}

// LoadDir reads a collection in the layout of ../shared/ir: corpus.jsonl
// ({"id","title","contents"} per line), topics.tsv (ID<TAB>text) and qrels.txt
// (TOPIC 0 DOCID GRADE).
func LoadDir(dir string) (*Collection, error) {
	c := &Collection{Name: filepath.Base(filepath.Clean(dir))}
	if err := eachLine(filepath.Join(dir, "corpus.jsonl"), func(line string) error {
		var d struct{ ID, Title, Contents string }
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			return err
		}
		if d.ID == "" {
			return fmt.Errorf("document without an id")
		}
		c.Docs = append(c.Docs, Doc{ID: d.ID, Title: d.Title, Text: d.Contents})
		return nil
	}); err != nil {
		return nil, err
	}
	qrels := map[string]map[string]int{}
	if err := eachLine(filepath.Join(dir, "qrels.txt"), func(line string) error {
		f := strings.Fields(line)
		if len(f) != 4 {
			return fmt.Errorf("want 4 fields TOPIC ITER DOCID GRADE, got %d", len(f))
		}
		grade, err := strconv.Atoi(f[3])
		if err != nil {
			return err
		}
		if qrels[f[0]] == nil {
			qrels[f[0]] = map[string]int{}
		}
		qrels[f[0]][f[2]] = grade
		return nil
	}); err != nil {
		return nil, err
	}
	if err := eachLine(filepath.Join(dir, "topics.tsv"), func(line string) error {
		id, text, ok := strings.Cut(line, "\t")
		if !ok {
			return fmt.Errorf("want ID<TAB>text")
		}
		c.Topics = append(c.Topics, Topic{ID: id, Query: text, Qrels: qrels[id]})
		return nil
	}); err != nil {
		return nil, err
	}
	return c.validated()
}

// LoadAuthored reads a collection in the JSON layout of search/testdata/quality.json
// ({"documents":[{"id","text"}],"queries":[{"id","text","judgements":{doc:grade}}]}).
func LoadAuthored(path string) (*Collection, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var a struct {
		Documents []struct{ ID, Text string }
		Queries   []struct {
			ID, Text   string
			Judgements map[string]int
		}
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c := &Collection{Name: strings.TrimSuffix(filepath.Base(path), ".json")}
	for _, d := range a.Documents {
		c.Docs = append(c.Docs, Doc{ID: d.ID, Text: d.Text})
	}
	for _, q := range a.Queries {
		c.Topics = append(c.Topics, Topic{ID: q.ID, Query: q.Text, Qrels: q.Judgements})
	}
	return c.validated()
}

func (c *Collection) validated() (*Collection, error) {
	ids := make(map[string]bool, len(c.Docs))
	for _, d := range c.Docs {
		if ids[d.ID] {
			return nil, fmt.Errorf("%s: document %s appears twice", c.Name, d.ID)
		}
		ids[d.ID] = true
	}
	judged := c.Topics[:0]
	for _, t := range c.Topics {
		for _, g := range t.Qrels {
			if g > 0 {
				judged = append(judged, t)
				break
			}
		}
	}
	c.Topics = judged
	if len(c.Docs) == 0 || len(c.Topics) == 0 {
		return nil, fmt.Errorf("%s: %d documents and %d judged topics; both must be non-empty", c.Name, len(c.Docs), len(c.Topics))
	}
	return c, nil
}

// Split divides the topics into a tuning half and a held-out half by a stable rule (the
// topic's position: even positions tune, odd positions are held out), so that defaults chosen
// on one half can be checked on the other.
func (c *Collection) Split() (tune, heldOut []Topic) {
	for i, t := range c.Topics {
		if i%2 == 0 {
			tune = append(tune, t)
		} else {
			heldOut = append(heldOut, t)
		}
	}
	return tune, heldOut
}

// DocIDs returns the document IDs, sorted.
func (c *Collection) DocIDs() []string {
	ids := make([]string, len(c.Docs))
	for i, d := range c.Docs {
		ids[i] = d.ID
	}
	sort.Strings(ids)
	return ids
}

func eachLine(path string, fn func(string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}
