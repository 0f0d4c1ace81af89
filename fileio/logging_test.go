package fileio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
)

// TestLogsNeverContainContentOrKeys drives every operation, successes and failures, with a
// logger capturing everything at Debug in both slog formats, and searches the output for the
// content and the API key.
func TestLogsNeverContainContentOrKeys(t *testing.T) {
	const apiKey = "sk-live-SECRETKEY-1234567890"
	const secret = "TOPSECRETCONTENT"
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			opts := &slog.HandlerOptions{Level: slog.LevelDebug}
			var h slog.Handler = slog.NewJSONHandler(&buf, opts)
			if format == "text" {
				h = slog.NewTextHandler(&buf, opts)
			}
			svc := newSvc(t, newMem(), func(c *fileio.Config) { c.MaxPayloadBytes, c.MaxFileBytes = 64, 100 }, fileio.Options{Logger: slog.New(h)})
			ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext(apiKey, "alice"))
			content := "line one " + secret + " line two"
			reqs := []fileio.WriteRequest{
				{Project: "p", Path: "/s.txt", Content: content},
				{Project: "p", Path: "/s.txt", Content: content, Mode: fileio.ModeOverwrite, OffsetBytes: 3},
				{Project: "p", Path: "/s.txt", Content: content + "\xff"},                           // invalid UTF-8
				{Project: "p", Path: "/s.txt", Content: strings.Repeat(secret, 5)},                  // payload too large
				{Project: "p", Path: "/s.txt", Content: content + content, Mode: fileio.ModeAppend}, // file quota
				{Project: "p", Path: "/s.txt/x", Content: content},                                  // not a directory
				{Project: "p", Path: "bad path", Content: content},
			}
			for _, r := range reqs {
				svc.Write(ctx, r)
			}
			svc.Read(ctx, fileio.ReadRequest{Project: "p", Path: "/s.txt", OffsetBytes: 0, LengthBytes: new(int64(-1))})
			svc.Read(ctx, fileio.ReadRequest{Project: "p", Path: "/s.txt", OffsetBytes: 11, LengthBytes: new(int64(3))})
			svc.Stat(ctx, fileio.StatRequest{Project: "p", Path: "/s.txt"})
			svc.List(ctx, fileio.ListRequest{Project: "p", Path: "", Depth: 3, Limit: 0})
			svc.Delete(ctx, fileio.DeleteRequest{Project: "p", Path: "/s.txt", Recursive: false})
			svc.Stat(context.Background(), fileio.StatRequest{Project: "p", Path: "/s.txt"}) // unauthenticated
			fmt.Fprintf(&buf, "%v %+v %#v %s\n", agentfiles.NewAuthContext(apiKey, "x"), agentfiles.NewAuthContext(apiKey, "x"), agentfiles.NewAuthContext(apiKey, "x"), agentfiles.NewAuthContext(apiKey, "x"))

			out := buf.String()
			if strings.Count(out, "fileio.") < 12 {
				t.Fatalf("expected a record per operation, got:\n%s", out)
			}
			for _, needle := range []string{secret, apiKey, "SECRETKEY", "line one"} {
				if strings.Contains(out, needle) {
					t.Errorf("logs contain %q:\n%s", needle, out)
				}
			}
			if !strings.Contains(out, "alice") || !strings.Contains(out, "bytes") {
				t.Errorf("logs lack the user label or the content length:\n%s", out)
			}
		})
	}
}

func TestLogContentHashAndPreview(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svc := newSvc(t, newMem(), func(c *fileio.Config) { c.LogContentSHA256, c.LogPreviewBytes = true, 5 }, fileio.Options{Logger: logger})
	svc.Write(authed("k"), fileio.WriteRequest{Project: "p", Path: "/f", Content: "abcdé-rest"})
	svc.Write(authed("k"), fileio.WriteRequest{Project: "p", Path: "/g", Content: "abc"})
	type record struct {
		Content struct {
			Bytes     int    `json:"bytes"`
			SHA256    string `json:"sha256"`
			Preview   string `json:"preview"`
			Truncated bool   `json:"truncated"`
		} `json:"content"`
	}
	var recs []record
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 2 {
		t.Fatalf("records: %s", buf.String())
	}
	// The 5-byte preview stops before é (bytes 4..5) rather than split it.
	if c := recs[0].Content; c.Bytes != 11 || c.Preview != "abcd" || !c.Truncated || len(c.SHA256) != 64 {
		t.Errorf("first record content = %+v", c)
	}
	if c := recs[1].Content; c.Preview != "abc" || c.Truncated {
		t.Errorf("short content = %+v; want the whole preview, not marked truncated", c)
	}
}

func TestSilentByDefault(t *testing.T) {
	// A Service without Options.Logger must not write to the default slog logger.
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(prev)
	svc := newSvc(t, failingStore{newMem()}, nil)
	svc.Write(authed("k"), fileio.WriteRequest{Project: "p", Path: "/f", Content: "x"})
	if buf.Len() != 0 {
		t.Errorf("default logger received: %s", buf.String())
	}
}
