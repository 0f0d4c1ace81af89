package main

// A minimal Chrome DevTools Protocol client over --remote-debugging-pipe: Chromium reads
// NUL-terminated JSON commands on fd 3 and writes responses and events on fd 4. No WebSocket
// and no third-party driver are needed for the handful of commands the console test uses.

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/poll"
)

// chromiumPath returns the Chromium binary or skips the test (fails under
// AGENTFILES_REQUIRE_SERVICES=1).
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	msg := "chromium not found: install the Debian package chromium to run the console test"
	if os.Getenv("AGENTFILES_REQUIRE_SERVICES") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// browser is one headless Chromium with one page attached (flattened session).
type browser struct {
	t        *testing.T
	cmd      *exec.Cmd
	toChrome *os.File
	session  string

	mu      sync.Mutex
	nextID  int
	pending map[int]chan cdpMessage
	readErr error
	done    chan struct{}
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *cdpError       `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// startBrowser launches headless Chromium with a fresh profile and opens a blank page of the
// given size. It is stopped when the test ends.
func startBrowser(t *testing.T, width, height int) *browser {
	t.Helper()
	bin := chromiumPath(t)
	cmdIn, toChrome, err := os.Pipe() // we write, Chromium reads on fd 3
	if err != nil {
		t.Fatal(err)
	}
	fromChrome, cmdOut, err := os.Pipe() // Chromium writes on fd 4, we read
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdIn, cmdOut}
	var stderr cmdtest.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	cmdIn.Close()
	cmdOut.Close()
	b := &browser{t: t, cmd: cmd, toChrome: toChrome, pending: map[int]chan cdpMessage{}, done: make(chan struct{})}
	go b.readLoop(fromChrome)
	t.Cleanup(func() {
		b.toChrome.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		fromChrome.Close()
		if t.Failed() {
			t.Logf("chromium stderr (tail):\n%s", tailString(stderr.String(), 3000))
		}
	})

	var created struct {
		TargetID string `json:"targetId"`
	}
	b.callRoot("Target.createTarget", map[string]any{"url": "about:blank"}, &created)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	b.callRoot("Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	b.call("Page.enable", nil, nil)
	b.call("Runtime.enable", nil, nil)
	b.call("Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false,
	}, nil)
	return b
}

func (b *browser) readLoop(r *os.File) {
	defer close(b.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = err
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var m cdpMessage
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil || m.ID == 0 {
			continue // events are not needed: the test polls the page instead
		}
		b.mu.Lock()
		ch := b.pending[m.ID]
		delete(b.pending, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// send issues one command and waits for its response.
func (b *browser) send(session, method string, params, result any) error {
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return fmt.Errorf("chromium is gone: %w", b.readErr)
	}
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()

	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.toChrome.Write(append(data, 0)); err != nil {
		return fmt.Errorf("writing to chromium: %w", err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return errors.New("chromium closed the pipe")
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("%s: no answer from chromium within 30s", method)
	}
}

func (b *browser) callRoot(method string, params, result any) {
	b.t.Helper()
	if err := b.send("", method, params, result); err != nil {
		b.t.Fatal(err)
	}
}

func (b *browser) call(method string, params, result any) {
	b.t.Helper()
	if err := b.send(b.session, method, params, result); err != nil {
		b.t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression in the page (awaiting promises) and decodes its value
// into out (which may be nil).
func (b *browser) eval(expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := b.send(b.session, "Runtime.evaluate", map[string]any{
		"expression": expr, "awaitPromise": true, "returnByValue": true,
	}, &res)
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("javascript: %s %s", res.ExceptionDetails.Text, res.ExceptionDetails.Exception.Description)
	}
	if out != nil && len(res.Result.Value) > 0 {
		return json.Unmarshal(res.Result.Value, out)
	}
	return nil
}

// text returns the textContent of the first element matching selector ("" when none).
func (b *browser) text(selector string) string {
	b.t.Helper()
	var s string
	if err := b.eval(fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, selector), &s); err != nil {
		b.t.Fatal(err)
	}
	return s
}

// waitFor polls a boolean JavaScript expression until it is true or the deadline passes.
func (b *browser) waitFor(what, expr string) {
	b.t.Helper()
	var lastErr error
	err := poll.Until(context.Background(), 15*time.Second, what, func() (bool, error) {
		var ok bool
		lastErr = b.eval(expr, &ok)
		return lastErr == nil && ok, nil
	})
	if err != nil {
		b.t.Fatalf("waiting for %s: %s did not become true (last error: %v); page status %q, error box %q",
			what, expr, lastErr, b.text("#status"), b.text("#error"))
	}
}

// navigate loads url and waits until the document and the console script are ready.
func (b *browser) navigate(url string) {
	b.t.Helper()
	b.call("Page.navigate", map[string]any{"url": url}, nil)
	b.waitFor("page load", `document.readyState === "complete"`)
}

// focus moves keyboard focus to the element, as Tab would.
func (b *browser) focus(selector string) {
	b.t.Helper()
	var ok bool
	if err := b.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; e.focus(); return document.activeElement === e; })()`, selector), &ok); err != nil || !ok {
		b.t.Fatalf("cannot focus %s (err %v)", selector, err)
	}
}

// typeText types text into the focused element as keyboard input.
func (b *browser) typeText(text string) {
	b.t.Helper()
	b.call("Input.insertText", map[string]any{"text": text}, nil)
}

// clear selects the focused field's content and deletes it with the keyboard.
func (b *browser) clear() {
	b.t.Helper()
	if err := b.eval(`document.activeElement.select ? document.activeElement.select() : null`, nil); err != nil {
		b.t.Fatal(err)
	}
	b.key("Backspace", "Backspace", 8, "")
}

// retype focuses the field, clears it and types text into it, as a user replacing its content
// would.
func (b *browser) retype(selector, text string) {
	b.t.Helper()
	b.focus(selector)
	b.clear()
	b.typeText(text)
}

// key presses and releases one key on the focused element.
func (b *browser) key(key, code string, keyCode int, text string) {
	b.t.Helper()
	down := map[string]any{"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": keyCode, "nativeVirtualKeyCode": keyCode}
	if text != "" {
		down["text"] = text
	}
	b.call("Input.dispatchKeyEvent", down, nil)
	b.call("Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": keyCode, "nativeVirtualKeyCode": keyCode}, nil)
}

func (b *browser) pressEnter()     { b.key("Enter", "Enter", 13, "\r") }
func (b *browser) pressArrowDown() { b.key("ArrowDown", "ArrowDown", 40, "") }

// click clicks the centre of the first element matching selector with the mouse.
func (b *browser) click(selector string) {
	b.t.Helper()
	var rect struct{ X, Y float64 }
	err := b.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return {X: r.x + r.width / 2, Y: r.y + r.height / 2}; })()`, selector), &rect)
	if err != nil {
		b.t.Fatalf("locating %s: %v", selector, err)
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		b.call("Input.dispatchMouseEvent", map[string]any{"type": typ, "x": rect.X, "y": rect.Y, "button": "left", "clickCount": 1}, nil)
	}
}

// screenshot saves a PNG of the viewport to path.
func (b *browser) screenshot(path string) {
	b.t.Helper()
	var shot struct {
		Data string `json:"data"`
	}
	b.call("Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

func tailString(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
