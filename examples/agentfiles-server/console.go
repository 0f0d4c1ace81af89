package main

import (
	"embed"
	"io/fs"
	"net/http"
)

// consoleFiles is the agentfiles console: plain HTML, CSS and JavaScript, no build step.
//
//go:embed console/index.html console/app.js console/style.css
var consoleFiles embed.FS

// consoleHandler serves the console at the server root. The page talks only to the HTTP JSON
// API (POST /tools/{name}) with the bearer token the user enters.
func consoleHandler() http.Handler {
	sub, err := fs.Sub(consoleFiles, "console")
	if err != nil {
		panic(err) // the embedded directory is fixed at build time
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "the console is read with GET; tools are called with POST /tools/{name}", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		// Everything the page needs is served from here: no inline scripts, no CDN, no frames.
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
