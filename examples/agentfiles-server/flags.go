package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"time"
)

// DevToken is the well-known bearer token of a run without authentication flags. It is fine on
// loopback, where only local processes can reach the server, and refused anywhere else.
const DevToken = "dev"

// commandName is the installed binary's name (go install ./examples/agentfiles-server).
const commandName = "agentfiles-server"

// DefaultAddr is where the server listens without -addr.
const DefaultAddr = "127.0.0.1:8080"

// config is the parsed command line.
type config struct {
	addr            string
	stdio           bool
	docs            []string // -docs, repeatable: roots of the documentation (fileid) tools
	catalog         string   // -catalog: YAML catalog of the expr tools
	catalogWritable bool     // -catalog-writable: offer the tools that edit the catalog
	databaseURL     string
	databaseConns   int // -database-max-conns: size of the PostgreSQL pool (0: pgx's default)
	grepCacheMB     int // -grep-cache-mb: memory for the PostgreSQL store's grep cache (0: its default; < 0: off)
	redisURL        string
	configFile      string // -config: the YAML configuration file (config.go)
	docsToolPrefix  string // -docs-tool-prefix: prepended to the documentation tools' names
	version         bool   // -version: print the version and exit

	devToken       string // -dev-token, or DevToken when no authentication flag is given
	devTokenSet    bool   // -dev-token was given explicitly
	tokenFile      string // -token-file: accepted tokens, one per line
	acceptAnyToken bool   // -accept-any-token: every bearer token is its own tenant
	mcpAnonymous   bool   // -mcp-anonymous: MCP requests without a token get the tenant-free tools

	embeddingsURL   string // -embeddings-url: OpenAI-compatible embeddings endpoint (caller's key)
	embeddingsModel string
	embeddingsDims  int
	rerank          bool // -rerank: use settings.mcp.files.search.rerank with the caller's key

	consultModel         string // -consult-model: enables the consultation tool
	consultBaseURL       string
	consultContextTokens int64
	consultRoots         []string // -consult-root, repeatable: the only directories consultation reads

	maxBodyBytes int64
	logLevel     string

	// HTTP server timeouts (-read-header-timeout, -read-timeout, -write-timeout, -idle-timeout):
	// a client that trickles its request, or holds an idle connection, is cut off.
	readHeaderTimeout time.Duration
	readTimeout       time.Duration
	writeTimeout      time.Duration
	idleTimeout       time.Duration
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// parseFlags parses args (without the program name). -h prints the usage on stderr; a mistake
// is a short error that points at -h, without the usage.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := newFlagSet(&c, stderr)
	fs.SetOutput(io.Discard) // the flag package would print the whole usage after a mistake
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return c, err
	}
	if err != nil {
		if m := invalidValue.FindStringSubmatch(err.Error()); m != nil && fs.Lookup(m[1]) != nil {
			return c, fmt.Errorf("%v; write %s (see -h)", err, valueForm(fs.Lookup(m[1])))
		}
		return c, fmt.Errorf("%v (see -h)", err)
	}
	return c, c.finish(fs)
}

// invalidValue matches the flag package's error for a value a flag refuses, capturing the flag.
var invalidValue = regexp.MustCompile(`^invalid value ".*" for flag -([a-z0-9-]+): `)

// newFlagSet defines every flag on c.
func newFlagSet(c *config, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(commandName, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", DefaultAddr, "listen address for HTTP: the console at /, the JSON API at /tools, MCP at /mcp")
	fs.BoolVar(&c.stdio, "stdio", false, "serve MCP on stdin/stdout instead of HTTP (tenant: the -dev-token)")
	fs.Var((*stringList)(&c.docs), "docs", "`directory` of Markdown documentation for the fileid tools (repeatable; order sets the file IDs; default: a short guide to these tools bundled in the binary)")
	fs.StringVar(&c.docsToolPrefix, "docs-tool-prefix", "docs_", "prefix of the documentation tools' names (docs_search next to file_search); empty for the plain names")
	fs.StringVar(&c.catalog, "catalog", "", "YAML catalog file for the expr tools (get_content and friends; default: the example catalog bundled in the binary, read-only)")
	fs.BoolVar(&c.catalogWritable, "catalog-writable", false, "also offer the tools that add, change and remove catalog categories and collections (saved to -catalog)")
	fs.StringVar(&c.databaseURL, "database-url", "", "PostgreSQL URL: store files (and their outbox) in PostgreSQL instead of memory")
	fs.IntVar(&c.databaseConns, "database-max-conns", 0, "connections in the PostgreSQL pool that files and the search index share (0: pgx's default, the larger of 4 and the number of CPUs); every call holds one for a bounded time, greps and globs together at most half of them (a quarter of that half per tenant, at least 1), and file_search calls of all tenants run a quarter of them at once (at least 1; settings.mcp.files.search.max_concurrent overrides it)")
	fs.IntVar(&c.grepCacheMB, "grep-cache-mb", 0, "MiB of memory in which the PostgreSQL store keeps file contents to answer file_grep (recently used projects, filled by greps and by this process's writes; contents, paths, listings and a fixed cost per file all count; 0: 512, negative: off, every grep in SQL)")
	fs.StringVar(&c.redisURL, "redis-url", "", "Redis URL (redis://host:port/db): keep sealed indexing credentials in Redis instead of memory")
	fs.StringVar(&c.configFile, "config", "", "YAML configuration file: every flag's key (see config.example.yaml) and settings.mcp.files (limits, search, index, security); flags given on the command line win")
	fs.BoolVar(&c.version, "version", false, "print the version and exit")
	fs.StringVar(&c.devToken, "dev-token", DevToken, "a bearer token the server accepts (its SHA-256 is the tenant); also the stdio tenant")
	fs.StringVar(&c.tokenFile, "token-file", "", "`file` of accepted bearer tokens, one \"TOKEN [LABEL]\" per line; # starts a comment")
	fs.BoolVar(&c.acceptAnyToken, "accept-any-token", false, "accept every non-empty bearer token, each its own tenant (put a gateway that checks keys in front)")
	fs.BoolVar(&c.mcpAnonymous, "mcp-anonymous", false, "serve MCP requests that carry no token; they can use the documentation tools, the file tools refuse them")
	fs.StringVar(&c.embeddingsURL, "embeddings-url", "", "OpenAI-compatible embeddings endpoint (…/v1/embeddings) called with each caller's own key instead of the hashing embedder; needs encryption_keks in -config")
	fs.StringVar(&c.embeddingsModel, "embeddings-model", "", "model for -embeddings-url, e.g. text-embedding-3-small")
	fs.IntVar(&c.embeddingsDims, "embeddings-dims", 0, "vector size of -embeddings-model, e.g. 1536")
	fs.BoolVar(&c.rerank, "rerank", false, "rerank search hits at settings.mcp.files.search.rerank.endpoint (Cohere-compatible) with each caller's own key")
	fs.StringVar(&c.consultModel, "consult-model", "", "model name for the consultation tool (off when empty); the API key comes from $"+ConsultAPIKeyEnv)
	fs.StringVar(&c.consultBaseURL, "consult-base-url", "", "OpenAI-compatible API root for -consult-model, e.g. https://openrouter.ai/api/v1 or http://127.0.0.1:11434/v1 (default OpenAI)")
	fs.Int64Var(&c.consultContextTokens, "consult-context-tokens", 0, "context window of -consult-model in tokens, checked before sending (0: unchecked)")
	fs.Var((*stringList)(&c.consultRoots), "consult-root", "`directory` whose files the consultation tool may send to -consult-model (repeatable; default: the documentation directories); symbolic links leading out are refused")
	fs.Int64Var(&c.maxBodyBytes, "max-body-bytes", 0, "largest request body in bytes, for the HTTP API and for MCP at /mcp (0: the adapters' default, 3 MiB)")
	fs.DurationVar(&c.readHeaderTimeout, "read-header-timeout", 10*time.Second, "HTTP: time a client has to send a request's headers")
	fs.DurationVar(&c.readTimeout, "read-timeout", 2*time.Minute, "HTTP: time a client has to send a whole request, body included")
	fs.DurationVar(&c.writeTimeout, "write-timeout", 10*time.Minute, "HTTP: time from the end of a request's headers to the end of its answer (bounds the longest tool call, e.g. a consultation)")
	fs.DurationVar(&c.idleTimeout, "idle-timeout", 2*time.Minute, "HTTP: how long an idle keep-alive connection is kept open")
	fs.StringVar(&c.logLevel, "log-level", "info", "debug, info, warn, error or off (logs go to stderr)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s: the agentfiles all-in-one server: every tool set over MCP (streamable HTTP at /mcp,\nor -stdio), the HTTP JSON API at /tools, and the agentfiles console at /. Every flag but\n-config, -stdio and -version also has a key in the -config file (see config.example.yaml).\n\nUsage: %s [flags]\n\nFlags:\n", commandName, commandName)
		fs.PrintDefaults()
	}
	return fs
}

// finish applies the -config file to the flags not given on the command line and checks the
// result.
func (c *config) finish(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; all options are flags (see -h)", fs.Arg(0))
	}
	if c.version {
		return nil
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if c.stdio && set["addr"] {
		return errors.New("-stdio and -addr exclude each other: -stdio serves MCP on stdin/stdout, -addr over HTTP")
	}
	if c.configFile != "" {
		if err := applyConfigFile(fs, c.configFile, set); err != nil {
			return err
		}
	}
	// A dev_token key equal to the well-known token is no choice of authentication.
	c.devTokenSet = set["dev-token"] || c.devToken != DevToken
	if strings.TrimSpace(c.devToken) == "" {
		return errors.New(flagRef("dev-token") + " must not be empty")
	}
	if c.databaseConns < 0 {
		return errors.New(flagRef("database-max-conns") + " must be >= 0 (0: pgx's default)")
	}
	if c.maxBodyBytes < 0 {
		return errors.New(flagRef("max-body-bytes") + " must be >= 0 (0: 3 MiB)")
	}
	if _, err := parseLogLevel(c.logLevel); err != nil {
		return err
	}
	for _, d := range []struct {
		name  string
		value time.Duration
	}{{"read-header-timeout", c.readHeaderTimeout}, {"read-timeout", c.readTimeout}, {"write-timeout", c.writeTimeout}, {"idle-timeout", c.idleTimeout}} {
		if d.value <= 0 {
			return fmt.Errorf("%s must be positive, e.g. 30s", flagRef(d.name))
		}
	}
	if !c.stdio {
		if err := c.checkExposure(); err != nil {
			return err
		}
	}
	return nil
}

// explicitAuth reports whether the operator chose how tokens are checked.
func (c config) explicitAuth() bool {
	return c.devTokenSet || c.tokenFile != "" || c.acceptAnyToken
}

// checkExposure refuses to listen beyond loopback with only the well-known dev token.
func (c config) checkExposure() error {
	host, _, err := net.SplitHostPort(c.addr)
	if err != nil {
		return fmt.Errorf("%s %q: %v (want host:port, e.g. %s)", flagRef("addr"), c.addr, err, DefaultAddr)
	}
	if isLoopbackHost(host) || c.explicitAuth() {
		return nil
	}
	if c.mcpAnonymous {
		return fmt.Errorf("-addr (server.addr) %s listens beyond loopback: configure tokens (-dev-token, -token-file or -accept-any-token) before using -mcp-anonymous there", c.addr)
	}
	return fmt.Errorf("-addr (server.addr) %s listens beyond loopback, where the well-known dev token %q would let anyone in: "+
		"give -dev-token SECRET, -token-file FILE or -accept-any-token, or listen on 127.0.0.1", c.addr, DevToken)
}

// isLoopbackHost reports whether host names only the local machine ("" and 0.0.0.0 do not).
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
