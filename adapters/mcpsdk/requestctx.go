package mcpsdk

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
)

// The SDK cancels a tool call when its HTTP request ends only for protocol versions from
// 2026-07-28 on (mcp.StreamableHTTPOptions.PropagateRequestCancellation); for older ones the
// call would run on after its client left. GuardHTTP therefore tags each request it serves
// with a header naming it and keeps the request's context under that name while it is served;
// Register's handler finds it through the call's request headers and stops the call when
// either context ends.

// requestHeader carries GuardHTTP's name of a request to Register's handler. GuardHTTP
// overwrites whatever a client sent in it.
const requestHeader = "X-Agentfiles-Request"

var (
	requestSeq      atomic.Uint64
	requestContexts sync.Map // name → context.Context of the HTTP request being served
)

// trackRequest names r, remembers its context until the returned function is called, and
// returns the request to serve.
func trackRequest(r *http.Request) (*http.Request, func()) {
	name := strconv.FormatUint(requestSeq.Add(1), 36)
	r = r.Clone(r.Context())
	r.Header.Set(requestHeader, name)
	requestContexts.Store(name, r.Context())
	return r, func() { requestContexts.Delete(name) }
}

// withRequestContext returns ctx, cancelled also when the HTTP request named in header ends.
func withRequestContext(ctx context.Context, header http.Header) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if header == nil {
		return ctx, cancel
	}
	v, ok := requestContexts.Load(header.Get(requestHeader))
	if !ok {
		return ctx, cancel
	}
	stop := context.AfterFunc(v.(context.Context), cancel)
	return ctx, func() { stop(); cancel() }
}
