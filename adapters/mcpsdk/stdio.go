package mcpsdk

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLineBytes is the longest stdio message [StdioTransport] accepts when
// StdioOptions.MaxLineBytes is zero: the MCP SDK's own default line limit.
const DefaultMaxLineBytes = mcp.DefaultMaxLineLength

// StdioOptions configure [StdioTransport]. The zero value is usable.
type StdioOptions struct {
	// MaxLineBytes bounds one message (one line); longer lines are answered with a parse error
	// and skipped. Zero means DefaultMaxLineBytes.
	MaxLineBytes int
}

// StdioTransport returns an MCP transport of newline-delimited JSON-RPC messages read from r
// and written to w (os.Stdin and os.Stdout for a stdio server) that outlives bad input. The
// SDK's own stdio transport ends the session, and with it the server, on the first line that
// is not a JSON-RPC message; this one answers such a line as JSON-RPC 2.0 says and reads on:
//
//   - a line that is not JSON (malformed, nested deeper than the decoder allows, or longer than
//     MaxLineBytes) gets the error -32700 "Parse error" with id null;
//   - JSON that is not a JSON-RPC 2.0 message (no "jsonrpc":"2.0", neither method nor id, an
//     empty batch) gets -32600 "Invalid Request", with the line's id when it has a usable one.
//
// Empty lines are skipped. Every other line goes to the SDK unchanged. w is never closed.
func StdioTransport(r io.Reader, w io.Writer, opts StdioOptions) mcp.Transport {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	return &stdioTransport{r: r, w: w, max: opts.MaxLineBytes}
}

type stdioTransport struct {
	r   io.Reader
	w   io.Writer
	max int
}

// Connect implements mcp.Transport: the SDK's IOTransport reads the lines that pass the filter.
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	out := &lockedWriter{w: t.w}
	pr, pw := io.Pipe()
	go filterLines(t.r, pw, out, t.max)
	// The filter has bounded every line already; the SDK's own cap would only repeat it.
	return (&mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: -1}).Connect(ctx)
}

// lockedWriter makes each Write whole: the SDK writes one message per Write, and so does the
// filter, from another goroutine.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// filterLines copies the JSON-RPC messages of src, one per line, to dst and answers the other
// lines on out. It ends at the end of src (dst then reads EOF) or when dst is closed.
func filterLines(src io.Reader, dst *io.PipeWriter, out io.Writer, max int) {
	br := bufio.NewReaderSize(src, 64<<10)
	for {
		line, tooLong, err := readLine(br, max)
		var werr error
		switch {
		case tooLong:
			_, werr = out.Write(errorResponse(nil, jsonrpc.CodeParseError, "Parse error: the message is longer than "+strconv.Itoa(max)+" bytes"))
		case len(bytes.TrimSpace(line)) == 0:
		default:
			if resp := check(line); resp != nil {
				_, werr = out.Write(resp)
			} else {
				_, werr = dst.Write(append(line, '\n'))
			}
		}
		if werr != nil {
			_ = dst.CloseWithError(werr)
			return
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			_ = dst.CloseWithError(err)
			return
		}
	}
}

// readLine reads one line without its line ending. A line longer than max is read to its end
// and dropped: tooLong is true and line is nil.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // +2: the line ending
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if tooLong {
			line = nil
		}
		return line, tooLong, err
	}
}

// check returns the error response for a line that is not a JSON-RPC message, or nil.
func check(line []byte) []byte {
	if !json.Valid(line) {
		return errorResponse(nil, jsonrpc.CodeParseError, "Parse error: the line is not valid JSON (or is nested too deeply)")
	}
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(trimmed, &batch); err != nil || len(batch) == 0 {
			return errorResponse(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: an empty batch")
		}
		for _, m := range batch {
			if _, err := jsonrpc.DecodeMessage(m); err != nil {
				return errorResponse(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a batch element is not a JSON-RPC 2.0 message")
			}
		}
		return nil
	}
	if _, err := jsonrpc.DecodeMessage(trimmed); err != nil {
		return errorResponse(usableID(trimmed), jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message (it needs \"jsonrpc\": \"2.0\" and a method or an id)")
	}
	return nil
}

// usableID returns the message's id when it is a string or an integer, else nil (null).
func usableID(msg []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 || len(m.ID) > 256 {
		return nil
	}
	var s string
	var n int64
	if json.Unmarshal(m.ID, &s) == nil || json.Unmarshal(m.ID, &n) == nil {
		return m.ID
	}
	return nil
}

// errorResponse is a JSON-RPC 2.0 error response line.
func errorResponse(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	return append(b, '\n')
}
