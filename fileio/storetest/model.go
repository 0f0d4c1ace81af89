package storetest

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/google/go-cmp/cmp"
)

// modelConfig is the Service configuration the model harness runs with: tiny limits, so that
// random sequences hit every quota, clamp and conflict rule quickly.
func modelConfig() fileio.Config {
	cfg := fileio.DefaultConfig()
	cfg.MaxPayloadBytes = 12
	cfg.MaxFileBytes = 24
	// 48 bytes of files, and the change-feed events of about 40 changes, which the quota
	// counts too: the model reaches the quota after some 40 writes and deletes, and from then
	// on refuses writes that grow the project (deletes still go through).
	cfg.MaxProjectBytes = 48 + 40*(driver.EventOverheadBytes+6)
	cfg.MaxReadBytes = 8
	cfg.ListLimitDefault = 3
	cfg.ListLimitMax = 5
	cfg.RateLimitPerSecond = 0
	cfg.AllowRootWipe = true
	cfg.HistoryVersions = 0 // the model's quota counts active files only; history.go tests the history
	return cfg
}

// RunModel runs nOps random operations, generated from seed, through a Service over store
// and checks every result against a reference model of the documented semantics. Each call uses
// fresh tenants, so a store may be shared between runs.
func RunModel(t testing.TB, store driver.Store, seed int64, nOps int) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	data := make([]byte, nOps*opBytes)
	rng.Read(data)
	RunModelOps(t, store, data)
}

// RunModelOps is RunModel with the operations decoded from data (opBytes bytes per
// operation), for fuzzing: f.Fuzz(func(t *testing.T, data []byte) { storetest.RunModelOps(t, store, data) }).
func RunModelOps(t testing.TB, store driver.Store, data []byte) {
	t.Helper()
	svc, err := fileio.NewService(store, fileio.Options{Config: modelConfig()})
	if err != nil {
		t.Fatal(err)
	}
	run := fmt.Sprintf("model-%d-%d", time.Now().UnixNano(), modelRun.Add(1))
	h := &harness{t: t, svc: svc, m: newModel(modelConfig()), run: run, outcomes: map[string]int{}}
	for i := 0; i+opBytes <= len(data); i += opBytes {
		h.step(i/opBytes, data[i:i+opBytes])
		if t.Failed() {
			t.Logf("operation log up to the failure:\n%s", strings.Join(h.log, "\n"))
			return
		}
	}
	if testing.Verbose() {
		t.Logf("model: %d operations, outcomes %v", len(data)/opBytes, h.outcomes)
	}
}

var modelRun atomic.Int64

// opBytes is the number of input bytes one random operation consumes.
const opBytes = 8

// Inputs the random operations choose from. Paths share prefixes so that conflicts
// (IS_DIRECTORY, NOT_DIRECTORY, NOT_EMPTY) and bytewise ordering ("/a-b" < "/a.c" < "/a/b")
// come up; a few are invalid. Contents mix one-, two-, three- and four-byte characters.
var (
	modelPaths    = []string{"", "/a", "/b", "/a/b", "/a/c", "/a/b/c", "/a-b", "/a.c", "/b/a", "/a/b/d", "/c"}
	modelBadPaths = []string{"/", "a", "/a/", "/a//b", "/a/./b", "/a\\b", "/a\u200bb", "/\xff"}
	modelContents = []string{"", "x", "hello", "é", "日本", "a😀b", "line\nline\n", "0123456789", "ééééééé", "\x00ok"}
	modelModes    = []fileio.WriteMode{fileio.ModeAppend, fileio.ModeOverwrite, fileio.ModeOverwrite, fileio.ModeTruncate, "", "append"}
	modelProjects = []string{"p1", "p2"}
)

type harness struct {
	t        testing.TB
	svc      *fileio.Service
	m        *model
	run      string
	log      []string
	outcomes map[string]int // "op CODE" -> count, "OK" for success
}

func (h *harness) step(i int, b []byte) {
	tenant := fmt.Sprintf("%s-t%d", h.run, b[1]&1)
	project := modelProjects[0]
	if b[1]&6 == 6 {
		project = modelProjects[1]
	}
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext(tenant, "model"))
	key := tenant + "\x00" + project
	path := modelPaths[int(b[2])%len(modelPaths)]
	if b[2] >= 224 {
		path = modelBadPaths[int(b[2])%len(modelBadPaths)]
	}
	where := fmt.Sprintf("t%d/%s %q", b[1]&1, project, path)
	op := []int{2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 0, 0, 4, 4, 4, 3, 3, 3, 2}[b[0]%20]
	switch op {
	case 0:
		got, err := h.svc.Stat(ctx, fileio.StatRequest{Project: project, Path: path})
		want, wantCode := h.m.stat(key, path)
		h.check(i, "stat "+where, got, err, want, wantCode)
	case 1:
		offset, length := int64(b[3]%14)-1, int64(b[4]%12)-2
		got, err := h.svc.Read(ctx, fileio.ReadRequest{Project: project, Path: path, OffsetBytes: offset, LengthBytes: new(int64(length))})
		want, wantCode := h.m.read(key, path, offset, length)
		h.check(i, fmt.Sprintf("read %s offset=%d length=%d", where, offset, length), got, err, want, wantCode)
	case 2:
		req := fileio.WriteRequest{
			Project:     project,
			Path:        path,
			Content:     modelContents[int(b[3])%len(modelContents)],
			OffsetBytes: int64(b[4]%16) - 1,
			Mode:        modelModes[int(b[5])%len(modelModes)],
			Exclusive:   b[6]&7 == 0,
		}
		if b[6]&8 != 0 {
			req.OffsetBytes = 0
		}
		switch {
		case b[6]&0xF0 == 0x10:
			req.ContentEncoding = "latin1"
		case b[6]&0xF0 == 0x20:
			req.Content = "\xff" // not UTF-8
		case b[6]&0xF0 == 0x30:
			req.Mode = "bogus"
		}
		got, err := h.svc.Write(ctx, req)
		want, wantCode := h.m.write(key, req)
		if err == nil && wantCode == noError {
			h.m.stamp(key, path, got.UpdatedAt, want.Created)
			want.UpdatedAt = got.UpdatedAt
		}
		h.check(i, fmt.Sprintf("write %s %q offset=%d mode=%q excl=%v enc=%q", where, req.Content, req.OffsetBytes, req.Mode, req.Exclusive, req.ContentEncoding),
			got, err, want, wantCode)
	case 3:
		recursive := b[3]&1 == 1
		err := h.svc.Delete(ctx, fileio.DeleteRequest{Project: project, Path: path, Recursive: recursive})
		h.check(i, fmt.Sprintf("delete %s recursive=%v", where, recursive), struct{}{}, err, struct{}{}, h.m.delete(key, path, recursive))
	case 4:
		depth, limit := int(b[3]%10)-1, int(b[4]%10)-1
		got, err := h.svc.List(ctx, fileio.ListRequest{Project: project, Path: path, Depth: depth, Limit: limit})
		want, wantCode := h.m.list(key, path, depth, limit)
		h.check(i, fmt.Sprintf("list %s depth=%d limit=%d", where, depth, limit), got, err, want, wantCode)
	}
}

// check logs operation i (described by what, its name first) and compares its result and
// error code with the model's.
func (h *harness) check(i int, what string, got any, err error, want any, wantCode agentfiles.Code) {
	h.t.Helper()
	h.log = append(h.log, fmt.Sprintf("%4d %s", i, what))
	op, _, _ := strings.Cut(what, " ")
	outcome := "OK"
	if wantCode != noError {
		outcome = wantCode.String()
	}
	h.outcomes[op+" "+outcome]++
	if gotCode := agentfiles.ErrorCode(err); gotCode != wantCode {
		h.t.Errorf("op %d %s: error %v, model says %s", i, op, err, describe(wantCode))
		return
	}
	if err != nil {
		return
	}
	if diff := cmp.Diff(want, markNote(got)); diff != "" {
		h.t.Errorf("op %d %s: result differs from the model (-model +store):\n%s", i, op, diff)
	}
}

// markNote replaces a non-empty Note by "*": the model checks that there is a note, not its wording.
func markNote(v any) any {
	switch r := v.(type) {
	case fileio.ReadResult:
		if r.Note != "" {
			r.Note = "*"
		}
		return r
	case fileio.ListResult:
		if r.Note != "" {
			r.Note = "*"
		}
		if r.NextCursor != "" {
			r.NextCursor = "*" // opaque; the model checks that there is one
		}
		return r
	}
	return v
}

// model is the reference: a plain map per (tenant, project) and the documented rules written out
// directly, independent of the Service's code.
type model struct {
	cfg      fileio.Config
	projects map[string]map[string]*modelFile
	events   map[string]int64 // per project: the bytes its change-feed events count
}

type modelFile struct {
	content            string
	created, updatedAt time.Time
}

func newModel(cfg fileio.Config) *model {
	return &model{cfg: cfg, projects: map[string]map[string]*modelFile{}, events: map[string]int64{}}
}

func (m *model) files(key string) map[string]*modelFile {
	if m.projects[key] == nil {
		m.projects[key] = map[string]*modelFile{}
	}
	return m.projects[key]
}

func (m *model) stamp(key, path string, at time.Time, created bool) {
	f := m.files(key)[path]
	f.updatedAt = at
	if created {
		f.created = at
	}
}

func modelValidPath(p string) bool {
	if p == "" {
		return true
	}
	if len(p) > fileio.MaxPathBytes || p[0] != '/' || strings.HasSuffix(p, "/") {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/_-.", r)) {
			return false
		}
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// below returns the files strictly below dir, sorted by path.
func (m *model) below(key, dir string) []string {
	var out []string
	for p := range m.files(key) {
		if strings.HasPrefix(p, dir+"/") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func (m *model) newest(key string, paths []string) time.Time {
	var t time.Time
	for _, p := range paths {
		if u := m.files(key)[p].updatedAt; u.After(t) {
			t = u
		}
	}
	return t
}

func (m *model) stat(key, path string) (fileio.StatResult, agentfiles.Code) {
	if !modelValidPath(path) {
		return fileio.StatResult{}, fileio.CodeInvalidPath
	}
	if f := m.files(key)[path]; f != nil && path != "" {
		return fileio.StatResult{Exists: true, Type: fileio.TypeFile, SizeBytes: int64(len(f.content)), CreatedAt: f.created, UpdatedAt: f.updatedAt}, noError
	}
	below := m.below(key, path)
	if len(below) == 0 && path != "" {
		return fileio.StatResult{}, noError
	}
	return fileio.StatResult{Exists: true, Type: fileio.TypeDirectory, UpdatedAt: m.newest(key, below)}, noError
}

func (m *model) read(key, path string, offset, length int64) (fileio.ReadResult, agentfiles.Code) {
	switch {
	case !modelValidPath(path):
		return fileio.ReadResult{}, fileio.CodeInvalidPath
	case path == "":
		return fileio.ReadResult{}, agentfiles.CodeIsDirectory
	case offset < 0:
		return fileio.ReadResult{}, fileio.CodeInvalidOffset
	case length < -1:
		return fileio.ReadResult{}, agentfiles.CodeInvalidArgument
	}
	f := m.files(key)[path]
	if f == nil {
		if len(m.below(key, path)) > 0 {
			return fileio.ReadResult{}, agentfiles.CodeIsDirectory
		}
		return fileio.ReadResult{}, agentfiles.CodeNotFound
	}
	c := f.content
	size := int64(len(c))
	res := fileio.ReadResult{ContentEncoding: "utf-8", OffsetBytes: offset, FileSizeBytes: size, NextOffsetBytes: offset}
	if offset >= size {
		return res, noError
	}
	if !utf8.RuneStart(c[offset]) {
		return fileio.ReadResult{}, fileio.CodeInvalidOffset
	}
	end := size
	if length >= 0 && offset+length < end {
		end = offset + length
	}
	clamped := false
	if end-offset > m.cfg.MaxReadBytes {
		end, clamped = offset+m.cfg.MaxReadBytes, true
	}
	want := end
	for end < size && !utf8.RuneStart(c[end]) {
		end--
	}
	if end == offset && want > offset {
		return fileio.ReadResult{}, fileio.CodeInvalidOffset
	}
	res.Content = c[offset:end]
	res.ReadBytes = end - offset
	res.NextOffsetBytes = end
	res.Truncated = clamped || end < want
	if res.Truncated {
		// The note's wording is the Service's; the model only checks that there is one.
		res.Note = "*"
	}
	return res, noError
}

func (m *model) write(key string, req fileio.WriteRequest) (fileio.WriteResult, agentfiles.Code) {
	path := req.Path
	switch {
	case !modelValidPath(path):
		return fileio.WriteResult{}, fileio.CodeInvalidPath
	case path == "":
		return fileio.WriteResult{}, agentfiles.CodeIsDirectory
	case req.ContentEncoding != "" && req.ContentEncoding != "utf-8":
		return fileio.WriteResult{}, agentfiles.CodeInvalidArgument
	}
	mode := strings.ToUpper(string(req.Mode))
	if mode == "" {
		mode = "APPEND"
	}
	switch {
	case mode != "APPEND" && mode != "OVERWRITE" && mode != "TRUNCATE":
		return fileio.WriteResult{}, agentfiles.CodeInvalidArgument
	case int64(len(req.Content)) > m.cfg.MaxPayloadBytes:
		return fileio.WriteResult{}, agentfiles.CodePayloadTooLarge
	case !utf8.ValidString(req.Content):
		return fileio.WriteResult{}, agentfiles.CodeInvalidArgument
	case mode != "APPEND" && req.OffsetBytes < 0:
		return fileio.WriteResult{}, fileio.CodeInvalidOffset
	case mode == "TRUNCATE" && req.OffsetBytes != 0:
		return fileio.WriteResult{}, fileio.CodeInvalidOffset
	}
	files := m.files(key)
	for i := 1; i < len(path); i++ {
		if path[i] == '/' && files[path[:i]] != nil {
			return fileio.WriteResult{}, fileio.CodeNotDirectory
		}
	}
	if len(m.below(key, path)) > 0 {
		return fileio.WriteResult{}, agentfiles.CodeIsDirectory
	}
	f := files[path]
	if f != nil && req.Exclusive {
		return fileio.WriteResult{}, agentfiles.CodeAlreadyExists
	}
	old := ""
	if f != nil {
		old = f.content
	}
	var next string
	switch mode {
	case "APPEND":
		next = old + req.Content
	case "TRUNCATE":
		next = req.Content
	case "OVERWRITE":
		off := int(req.OffsetBytes)
		if off > len(old) {
			return fileio.WriteResult{}, fileio.CodeInvalidOffset
		}
		if off < len(old) && !utf8.RuneStart(old[off]) {
			return fileio.WriteResult{}, fileio.CodeInvalidOffset
		}
		end := off + len(req.Content)
		if end < len(old) && !utf8.RuneStart(old[end]) {
			return fileio.WriteResult{}, fileio.CodeInvalidOffset
		}
		next = old[:off] + req.Content
		if end < len(old) {
			next += old[end:]
		}
	}
	if int64(len(next)) > m.cfg.MaxFileBytes {
		return fileio.WriteResult{}, fileio.CodeQuotaExceeded
	}
	var total int64
	for _, g := range files {
		total += int64(len(g.content))
	}
	// The quota counts the files and the change-feed events; a write is refused when it takes
	// the project over it and grows it (its event always does, unless it shrinks a file by
	// more).
	grow, ev := int64(len(next)-len(old)), driver.EventBytes(path)
	if after := total + grow + m.events[key] + ev; after > m.cfg.MaxProjectBytes && grow+ev > 0 {
		return fileio.WriteResult{}, fileio.CodeQuotaExceeded
	}
	m.events[key] += ev
	created := f == nil
	if created {
		f = &modelFile{}
		files[path] = f
	}
	f.content = next
	return fileio.WriteResult{BytesWritten: int64(len(req.Content)), FileSizeBytes: int64(len(next)), Created: created, SHA256: fileio.SHA256Hex([]byte(next))}, noError
}

func (m *model) delete(key, path string, recursive bool) agentfiles.Code {
	files := m.files(key)
	switch {
	case !modelValidPath(path):
		return fileio.CodeInvalidPath
	case path == "" && !m.cfg.AllowRootWipe:
		return agentfiles.CodePermissionDenied
	case path != "" && files[path] != nil:
		delete(files, path)
		m.events[key] += driver.EventBytes(path)
		return noError
	}
	below := m.below(key, path)
	switch {
	case len(below) > 0 && !recursive:
		return fileio.CodeNotEmpty
	case len(below) == 0 && path != "":
		return agentfiles.CodeNotFound
	}
	for _, p := range below {
		delete(files, p)
		m.events[key] += driver.EventBytes(p)
	}
	return noError
}

func (m *model) list(key, path string, depth, limit int) (fileio.ListResult, agentfiles.Code) {
	if path == "/" {
		path = ""
	}
	switch {
	case !modelValidPath(path):
		return fileio.ListResult{}, fileio.CodeInvalidPath
	case depth < 0, limit < 0:
		return fileio.ListResult{}, agentfiles.CodeInvalidArgument
	}
	res := fileio.ListResult{Limit: limit, Entries: []fileio.FileEntry{}}
	if limit == 0 {
		res.Limit = m.cfg.ListLimitDefault
	}
	if limit > m.cfg.ListLimitMax {
		res.Limit, res.LimitClamped = m.cfg.ListLimitMax, true
	}
	name := func(p string) string { return p[strings.LastIndex(p, "/")+1:] }
	files := m.files(key)
	if f := files[path]; f != nil && path != "" {
		if depth > 0 {
			return fileio.ListResult{}, fileio.CodeNotDirectory
		}
		res.Entries = []fileio.FileEntry{{Name: name(path), Path: path, Type: fileio.TypeFile, SizeBytes: int64(len(f.content)), CreatedAt: f.created, UpdatedAt: f.updatedAt}}
		return res, noError
	}
	below := m.below(key, path)
	if len(below) == 0 && path != "" {
		return fileio.ListResult{}, agentfiles.CodeNotFound
	}
	if depth == 0 {
		res.Entries = []fileio.FileEntry{{Name: name(path), Path: path, Type: fileio.TypeDirectory, UpdatedAt: m.newest(key, below)}}
		return res, noError
	}
	seen := map[string]bool{}
	for _, p := range below {
		segs := strings.Split(strings.TrimPrefix(p, path+"/"), "/")
		for level := 1; level <= depth && level <= len(segs); level++ {
			entry := path + "/" + strings.Join(segs[:level], "/")
			if seen[entry] {
				continue
			}
			seen[entry] = true
			if level == len(segs) {
				f := files[entry]
				res.Entries = append(res.Entries, fileio.FileEntry{Name: name(entry), Path: entry, Type: fileio.TypeFile, SizeBytes: int64(len(f.content)), CreatedAt: f.created, UpdatedAt: f.updatedAt})
			} else {
				res.Entries = append(res.Entries, fileio.FileEntry{Name: name(entry), Path: entry, Type: fileio.TypeDirectory, UpdatedAt: m.newest(key, m.below(key, entry))})
			}
		}
	}
	sort.Slice(res.Entries, func(i, j int) bool { return res.Entries[i].Path < res.Entries[j].Path })
	if len(res.Entries) > res.Limit {
		res.Entries, res.Truncated, res.NextCursor = res.Entries[:res.Limit], true, "*"
		res.Note = "*"
	}
	if len(res.Entries) == 0 && path == "" {
		res.Note = "*" // the project holds no files
	}
	return res, noError
}
