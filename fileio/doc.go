// Package fileio is a project-scoped, multi-tenant text file store for AI agents: the types,
// path rules, limits, configuration and error codes of the FileIO tools (file_stat,
// file_read, file_write, file_delete, file_list, and file_edit, file_rename, file_versions,
// file_restore, file_grep, file_glob, file_apply_patch, file_read_many, file_import,
// file_export, file_checkpoint, file_changes, file_rewind, file_events; file_shell is package
// fileio/shell, over a Snapshot) and the Service that
// enforces them over a store (fileio/memstore in memory, fileio/pgstore on PostgreSQL; both
// implement fileio/driver and pass fileio/storetest).
//
// # Model
//
// A tenant is the owner of files, named by the authenticator (agentfiles.AuthContext.TenantID):
// by default an API key, identified by its SHA-256, or several keys that share a named tenant.
// Each tenant has projects; each project is an isolated tree of UTF-8 text files. Directories are
// not stored: a directory exists while a file lies below it, and the project root "" always
// exists. Every operation takes the tenant from the agentfiles.AuthContext that an adapter put
// into the context (agentfiles.WithAuth); the Service never parses headers, and a context
// without one is PERMISSION_DENIED.
//
//	svc, _ := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{}) // DefaultConfig
//	ctx := agentfiles.WithAuth(ctx, agentfiles.NewAuthContext(apiKey, "alice"))
//	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/notes/todo.md", Content: "- milk\n"})
//
// # Configuration
//
// NewService takes the store and an Options value: Options.Config holds every limit and
// switch (the zero Config means DefaultConfig; LoadConfig reads the settings.mcp.files section
// of a YAML file), plus an optional Logger and CredentialSealer. Nothing is configured twice:
// the lock timeout and the delete retention are Config fields too, and the Service hands them
// to the store with every Update (UpdateOptions), so stores have no setting of their own for
// them.
//
// # Paths
//
// Every operation normalizes the paths it is given to Unicode NFC (NormalizePath), then checks
// them with the configured PathRule (Config.PathRule, key path_rule); every violation is
// INVALID_PATH. The default rule, PathRuleUnicode (ValidatePath), takes real-world names:
//
//	Rule                                          Valid                  Invalid
//	"" is the project root                        ""
//	at most 512 bytes                             "/" + 511 bytes        "/" + 512 bytes
//	starts with "/"                               "/a"                   "a", "./a"
//	does not end with "/"                         "/a/b"                 "/", "/a/"
//	"/" is the only separator                     "/a/b"                 "/a\b"
//	no empty segments                             "/a/b/c"               "//a", "/a//b"
//	no "." or ".." segments, nor lookalikes       "/.git", "/..."        "/.", "/a/../b", "/\uff0e\uff0e"
//	no control characters (C0, DEL, C1, U+2028)                          "/a\x00b", "/a\nb"
//	no invisible formatting characters (Cf)                              "/a\u200bb", "/\ufeffa"
//	valid UTF-8; any other text                   "/meeting notes.md"    "/\xff"
//	                                              "/café.md", "/日本/a"
//	project is 1..128 bytes of UTF-8, no controls "p", 128 bytes         "", 129 bytes
//	  nor formatting characters, no space at ends  "p q"                  " p", "p\u200bq"
//
// PathRulePortable ("portable") replaces the character rules with the older, stricter one: only
// a-z A-Z 0-9 / _ - . (no whitespace), for deployments whose files must be valid names on every
// file system and in shells without quoting.
//
// Lookalikes and case: paths are compared byte for byte after NFC normalization, so the two
// spellings of "café" (precomposed é, or e and a combining accent) are one file, and the
// compatibility forms NFKC would fold (the "ﬁ" ligature, fullwidth letters) stay distinct names.
// Paths are case-sensitive ("/README.md" and "/Readme.md" are two files), as in Git and on
// Linux. Characters that render as nothing, or reorder the text around them, are refused, so two
// different paths never print the same except through letters that look alike across scripts
// (Latin "a" and Cyrillic "а"), which are different names as they are for every file system.
//
// file_list alone also accepts "/" and treats it as "". The table's test data is
// storetest.PathRules and storetest.PortablePathRules; TestValidatePathRules and FuzzValidatePath
// check them.
//
// # Operations
//
// Stat reports files and implicit directories (size 0, zero CreatedAt, UpdatedAt of the
// newest descendant). Read takes a byte offset and length (-1 to end of file; past the end is
// empty). Write appends (default), overwrites at an offset, or truncates; it creates parent
// directories implicitly and refuses to write where a directory is (IS_DIRECTORY) or below a
// file (NOT_DIRECTORY); it returns the new content's SHA-256, and ExpectedSHA256 makes it fail
// with CONFLICT when the file changed since (optimistic concurrency, as for Edit). Delete removes a file, or a directory with Recursive; the root
// only with Config.AllowRootWipe. List returns entries to a depth, sorted by path bytewise,
// up to a limit (Config.ListLimitDefault, clamped to Config.ListLimitMax), and continues a
// truncated listing from its NextCursor. Every method takes a request struct (StatRequest,
// ReadRequest, WriteRequest, …) whose zero fields mean the documented defaults.
//
// The operations agents expect beyond those five:
//
//	Edit      exact-match replacements ({OldStr, NewStr, ReplaceAll}) applied in order, all or
//	          nothing, or the insert form (InsertText after line InsertLine); returns the new
//	          size, SHA-256 and a unified diff; DryRun changes nothing; ExpectedSHA256 makes it
//	          fail with CONFLICT when the file changed since the caller read it
//	Rename    a file or a whole directory, atomically under the project lock; ALREADY_EXISTS
//	          unless Overwrite (Exclusive: fail when anything, file or directory, is at the
//	          destination); the path rules and quotas of writes apply to every new path
//	Read      by bytes or by lines (StartLine, EndLine, 1-based and inclusive, negative
//	          from the end; LineNumbers prefixes each line like the memory tool's view), and
//	          of a kept version
//	Versions  the current version and the kept previous ones of a file, deleted files included
//	Restore   brings a kept version back, itself a new version
//	PurgeHistory  drops the kept versions of a file, a directory or the project
//	ApplyPatch  a multi-file patch (OpenAI's apply_patch format, a unified diff, or the
//	          Responses API's operations; see fileio/patch) in one transaction, all or nothing,
//	          with a diff and the matching pass of every chunk; DryRun changes nothing
//	ReadMany  several files (Paths, or a Glob) in one view, each with its SHA-256 or its own
//	          error, under one answer cap with a cursor
//
// Several edits in one call see each other's results; an OldStr that matches nowhere is
// NO_MATCH and one that matches more than once (without ReplaceAll) AMBIGUOUS_MATCH, whose
// message names the lines of the matches. A renamed file is a new file at its new path
// (CreatedAt is the rename's time); its old path is deleted and keeps its last version.
//
// # History
//
// Every write, edit, rename, restore and delete keeps the content it replaces as a version of
// the path, numbered 1, 2, … per path (a file created again after a delete continues the
// numbering). Retention has two limits, both in Config: the last HistoryVersions previous
// versions of each path (default 10; 0 turns the history off and version numbers stop
// advancing) and HistoryRetention after the version was replaced (default 7 days); a version
// goes when either runs out, removed by pgstore's purge job or at memstore's next write. A
// deleted file can be restored while its last version is kept. Kept versions count toward
// max_project_bytes (see Limits, quotas and rate limits): a write that replaces a file keeps
// its old content, so it adds to the project even at the same size, and is refused when that
// takes the project past its quota.
//
// Checks run in a fixed order, so one request always yields the same code: identity, rate
// limit, project, path, then the operation's own arguments, then the stored state.
//
// # Exact search
//
// Grep (file_grep) finds the lines that match a Go RE2 pattern as ripgrep does
// (rg --no-config --hidden -n, -F for FixedStrings, -i for IgnoreCase): each line is matched on
// its own, without its "\n" but with a "\r" before it; a file ending in "\n" has no empty line
// after it; files with a NUL byte are skipped. It returns the lines with context
// (GrepContent), the files (GrepFilesWithMatches) or counts per file (GrepCount), ordered by path
// and line. Glob (file_glob) lists the files whose path matches a pattern; package search's
// glob filter uses the same matcher.
//
// Each call is bounded on its own: a limit of entries (Config.GrepLimitDefault, clamped to
// GrepLimitMax), an answer byte cap (GrepMaxAnswerBytes), a scan budget of content bytes read
// (GrepMaxScanBytes) and a time budget (GrepTimeout), besides the tenant's rate limit and the
// caller's context. A bound that stops a search leaves Truncated, a Note and a NextCursor;
// following cursors to the end yields every entry exactly once.
//
// The pattern is analysed into a ContentQuery: the literal text every matching file must
// contain ("foo.*bar" needs "foo" and "bar"), found by walking the syntax tree after the idea of
// Russ Cox's trigram index. A store's index may use it to skip files (ContentSearcher): memstore
// checks it with substring searches in memory, pgstore with a pg_trgm GIN index that a
// background indexer maintains (the files written since it last ran are always candidates).
// The Service always matches lines itself, so every store gives the same answer;
// FuzzGrepAnalysis checks that the query never rejects a file with a matching line.
//
// The line matcher runs the expression only on lines that can match: those holding the
// longest literal every match holds (found by its rarest byte, as ripgrep does), a literal of
// each alternative ("(foo|bar)"), or, for a pattern without literals, a byte of a set every
// match holds ("-" in `[0-9]{4}-[0-9]{2}`), where a pattern of bounded length is tried only
// in a window around each such byte. The files of each fetched group are matched on the CPUs
// that are free and reported in path order, so limits, cursors and budgets end an answer
// where one CPU would have.
//
// # Archives
//
// Import reads a tar, tar.gz or zip stream (package fileio/archive detects the format from its
// first bytes) into a directory of a project in one write transaction: all or nothing. The
// whole stream is read and checked first, its files spooled to a temporary file, and only then
// does the transaction open, so a client that sends slowly holds no connection or lock of the
// store; a zip's directory is counted (MaxArchiveEntries, MaxArchiveDirectoryBytes) before it
// is parsed. Mode
// merge (the default) keeps the directory's other files, replace deletes them, so the directory
// equals the archive. Entry names are cleaned ("./a" is "a"), normalized to NFC and checked by
// the path rule; an entry that could escape ("..", an absolute name, a backslash), a link, a
// special file, a duplicate name (after normalization), a file where another entry has a
// directory, a file over MaxFileBytes or an archive that would pass MaxProjectBytes or
// MaxProjectFiles refuses the whole archive with the entry named. Files that are not UTF-8
// text are skipped and listed
// (ImportRequest.Strict refuses them). Each file is written as by Write: its old content is kept
// in history and an index job is queued. A store's WriteTx may implement BulkWriter to write a
// batch in one step (pgstore does, and adds new files to grep's trigram index in the same
// transaction). The budget is Config.ArchiveTimeout; the stream is capped at
// Config.MaxArchiveBytes; a tenant runs Config.MaxConcurrentArchives imports and exports at
// once.
//
// Export writes the files below a path (or matching a glob) as an archive from one read
// transaction, a consistent snapshot, reading them in batches (a store's ReadTx may implement
// ContentLister to read pages of files with their content, one statement each, as pgstore
// does) into a temporary spool, and sends the archive from it once the transaction has ended.
// Entry names are relative to the path, so an import at the same path gives the same files
// back. Neither direction holds the archive in memory: an import holds about 100 bytes and its
// path twice per file, one batch (at most 500 files or 2 MiB, plus one file of up to
// MaxFileBytes) and the directory's paths (a zip's directory, parsed by archive/zip, adds
// about 250 bytes per entry within the limits above; Service.Import states the bound), an
// export one file from a ContentLister and otherwise a batch of 256 files or 8 MiB.
//
// # Checkpoints, rewind and the change feed
//
// Service.Checkpoint records a project's state at a position of its change feed; Changes lists
// the files that differ from it (added, modified, deleted, renamed) with bounded diffs, and
// Rewind returns the files to it in one transaction, writing new versions so that a rewind is
// itself undoable. Service.Events is the change feed: every committed change once, in commit
// order, by gap-free positions, with a long poll (Config.FeedMaxWait; at most
// Config.MaxFeedWaits of a tenant's long polls wait at once, RESOURCE_BUSY beyond). A checkpoint pins the
// kept versions it needs: the history's limits and PurgeHistory leave them until
// DeleteCheckpoint, and they count toward max_project_bytes, so a loop of "write, checkpoint,
// overwrite" ends at the quota, whose QUOTA_EXCEEDED names the pinned bytes and the
// checkpoints to delete; Checkpoint's answer says what it pins. A project keeps at most
// Config.MaxCheckpoints. Stores provide it through the optional FeedReader, CheckpointWriter and
// FeedWaiter interfaces; checkpoints need the history (Config.HistoryVersions > 0).
//
// # Snapshots, io/fs and the shell
//
// Service.Snapshot returns a project as it stands at one position of its change feed, without
// holding a transaction, connection or lock between reads: each read is a short read
// transaction that also reads the feed's head, and one that meets a change made after the
// snapshot's position fails with CONFLICT instead of mixing two states (see Snapshot).
// Snapshot.Commit writes a set of files and deletions in one write transaction, with the rules
// of Write and Delete, unless something the snapshot read or the commit writes changed since
// (CONFLICT); each changed file gets one version and one change-feed event, so checkpoints and
// Rewind see the commit as one step. Service.FS offers a snapshot as an io/fs.FS (ProjectFS:
// fs.ReadDirFS, fs.ReadFileFS, fs.StatFS; it passes testing/fstest.TestFS). Package
// fileio/shell runs bash text over a snapshot (file_shell) and commits what it wrote this way;
// its limits are the Shell* fields of Config.
//
// # UTF-8 and offsets
//
// Content is text: it must be valid UTF-8 (INVALID_ARGUMENT otherwise) and the library never
// returns invalid UTF-8. Offsets are bytes. A read or overwrite that would start inside a
// multi-byte character is INVALID_OFFSET and the message names the nearest valid offsets; an
// overwrite that would end inside one is INVALID_OFFSET too. A read whose range ends inside
// a character is shortened to the character's start and reports Truncated with
// NextOffsetBytes (INVALID_OFFSET if that leaves nothing). Reads longer than
// Config.MaxReadBytes (default 2 MiB) are clamped the same way.
//
// # Limits, quotas and rate limits
//
// Content over Config.MaxPayloadBytes (2 MiB) is PAYLOAD_TOO_LARGE. QUOTA_EXCEEDED refuses a
// file over MaxFileBytes (10 MiB) and a change that would take a project past MaxProjectBytes
// (100 MiB) or MaxProjectFiles (100,000 files, empty ones included), or its tenant past
// MaxTenantFiles (1,000,000) or MaxTenantProjects (1000 projects that hold a file or a kept
// version). The byte quota counts everything a project keeps: its files, the versions its
// history keeps (those checkpoints pin included) and its change-feed events (each its path's
// bytes plus 128, kept a day at least and while a checkpoint older than it exists). A change
// is refused when it leaves the project over a quota and above where it was, whether or not a
// file grows; a change that only deletes is never refused (it may leave the project over its
// byte quota by its events). The Service checks as it plans a change; the store checks again
// before it commits (driver.UpdateOptions.Quota), where it knows what the history keeps and
// drops, inside the project's lock, so concurrent writers cannot exceed a project's quotas
// together (the tenant's are checked against its other projects as committed, so writes to
// several of its projects at once may pass them by what they add). Each tenant has a token
// bucket (RateLimitPerSecond, RateLimitBurst); an empty
// bucket is RATE_LIMITED with the time to wait. Configuration comes from the
// settings.mcp.files section of a YAML file (LoadConfig), never from environment variables;
// an unknown key, a key at the wrong level or a value of the wrong form is INVALID_CONFIG
// naming the key, its line and the form expected.
//
// # Budgets
//
// Many tenants share one process and one database, so no call may cost more than a small,
// known amount, whatever its arguments: one tenant must not slow another. Every operation,
// and every new one, follows these rules.
//
//   - Wall time. Each call runs under a context that ends after Config.CallTimeout (30 s), or
//     at the caller's own deadline when earlier (callBudget, in budget.go). A call stops when
//     its caller leaves: the context reaches the store, and loops whose cost grows with the
//     input (edits, lines, files) check it between steps (stillWanted).
//   - Database time. pgstore sends the time left on the context as the transaction's
//     statement_timeout (capped by pgstore.Options.StatementTimeout) in the round trip that
//     opens it, and a pool made by pgstore.Open cancels a statement in the server when its
//     context ends. A SQL function that cannot be interrupted must have its work bounded
//     before it starts: Splicer.Locate runs position() only while size × needle stays within
//     a budget and leaves longer searches to the Service's linear one.
//   - Memory. What a call allocates is linear in the file it touches and bounded by
//     max_file_bytes: a replace_all that would outgrow it is refused before it is built, and
//     the diff of an edit needs memory linear in the lines it compares (Myers' algorithm in
//     linear space; a small change to a large file compares only the lines around it).
//   - Concurrency. A tenant runs at most Config.MaxConcurrentCalls transactions at once (half
//     the CPUs by default); its further calls wait for one of its own to end, so one tenant's
//     parallel calls leave CPUs and connections to the others. adapters/mcpsdk.GuardHTTP does
//     the same per caller for /mcp requests that call no tool (tools/list, batches).
//   - Work per call. Config.MaxEditsPerCall (100) edits, Config.MaxEditWorkBytes (32 MiB) of
//     text scanned by them together, Config.MaxDiffCost (1,000,000 steps) of line diff, past
//     which the diff is one coarser hunk and EditResult.DiffNote says so,
//     Config.MaxRenameFiles (2000) files per rename, Config.GrepMaxScanBytes (64 MiB) of file
//     content read per Grep, which stops between files at Config.GrepTimeout (10 s) and
//     answers with a cursor (see Exact search).
//   - Answer size. Reads return at most max_read_bytes, line-number prefixes included, and a
//     read that names no end (no length, or no end_line) at most read_default_lines
//     (2000) lines and read_default_bytes (256 KiB), then Truncated with the continuation;
//     lists and globs at most list_limit_max entries; greps at most grep_limit_max entries
//     and Config.GrepMaxAnswerBytes (256 KiB); diffs at most Config.MaxDiffBytes (256 KiB, then
//     DiffTruncated). Each says it cut and how to get the rest.
//   - Rate and connections. Every call draws on its tenant's token bucket (RateLimiter), which
//     the adapters share with search and the MCP transport; the PostgreSQL pool is sized
//     (pgstore.Options.MaxConns) and each call holds a connection only for its bounded time.
//   - Quota. Kept versions and change-feed events count toward max_project_bytes;
//     QUOTA_EXCEEDED says how much the files, the kept versions (and of them the pinned ones)
//     and the events hold, and what frees each: PurgeHistory drops kept versions,
//     DeleteCheckpoint unpins them.
//   - Archives. An import reads its whole archive into a spool before its transaction, an
//     export reads into a spool and sends after its transaction, so neither holds a
//     connection or a lock while its client is slow; a tenant runs MaxConcurrentArchives of
//     them at once, each bounded by ArchiveTimeout, and a zip's directory is counted before it
//     is parsed (see Archives).
//   - Arguments. A request that names one file twice (paths, expected_sha256 keys, patch
//     operations, archive entries), in spellings that normalize to one path, is refused.
//   - Patterns. A glob is compiled segment by segment into automata that are simulated state
//     by state, never backtracking: a match costs at most about len(pattern) × len(path)
//     steps, however many stars, globstars and braces it holds (FuzzGlobCost in
//     internal/globmatch checks the bound), and the loops over paths check the context
//     before each one. Braces that stand for more than 4096 brace-free patterns ("{,}"
//     repeated) are
//     INVALID_PATTERN, saying to list alternatives in one group. Grep runs its expression on
//     chunks of whole lines (about 2^24 automaton steps each) and between chunks checks the
//     context, the time budget and, in content mode, the scan budget, so it can stop part way
//     through a file with a line cursor; the other modes, which report whole files, stop
//     between files (TIMEOUT when not even one file fit). A line on which the expression
//     would cost more than 2^26 steps is not searched, and the Note names it. Literal
//     searches are linear (ignore-case ones finish with Knuth-Morris-Pratt), query literals
//     are cut to MaxQueryLiteralBytes (32) for the stores, and memstore's candidate filter
//     counts what it reads against the scan budget.
//   - Answers as sent. The grep answer cap counts JSON bytes with their escapes (a control
//     character is six); a first match larger than the cap loses context lines, farthest
//     first, then the end of its line, and the Note says so. Over MCP, which sends each answer
//     twice (structured content and the same JSON as text), the cap counts both copies, the
//     text's escapes escaped again (agentfiles.AnswerJSONAndText on the call's context, set by
//     adapters/mcpsdk), so an MCP answer holds about half of what an HTTP one does.
//   - Locks. A write waits for its project at most Config.LockTimeout (5 s), then fails with
//     RESOURCE_BUSY having changed nothing. On memstore that deadline covers the commit too,
//     and a waiting write never holds back reads: they go on while it waits, so a slow reader
//     delays writes of its project (up to the deadline), never other reads.
//
// Searches and the connection pool. Grep and Glob keep one read transaction for up to
// Config.GrepTimeout (10 s) plus a 2 s grace, so they run it in the store's ViewScan
// (ScanViewer) rather than View. pgstore lets searches hold at most half of its pool's
// connections at once (at least 1), and one tenant's searches at most a quarter of those (at
// least 1); reads, writes and every other call use the other half, so they never wait for
// another tenant's search. With pgx's default pool of max(4, CPUs) connections that is 2 of 4
// connections (1 per tenant) up to 4 CPUs, 4 of 8 (1 per tenant) on 8, 8 of 16 (2 per tenant)
// on 16 and 32 of 64 (8 per tenant) on 64. A search that finds them busy waits in arrival
// order within its time budget and fails with RESOURCE_BUSY (retryable) when it runs out.
//
// A limit that a caller meets is an *agentfiles.Error whose message names the limit and the
// way around it (split the edits, rename subdirectories, read from the next offset); the tool
// descriptions of adapters/fileiotools state the limits from Config. storetest's Budgets
// suite checks each rule on every store.
//
// # Error codes
//
// Every error is an *agentfiles.Error with a machine-stable Code; Codes lists all that the
// Service and the stores return. NOT_DIRECTORY, INVALID_PATH, INVALID_OFFSET, NOT_EMPTY,
// QUOTA_EXCEEDED, CONFLICT, NO_MATCH and AMBIGUOUS_MATCH are fileio's own (CodeNotDirectory,
// ErrNotDirectory, …); the others are the codes every agentfiles package shares
// (agentfiles.CodeNotFound, agentfiles.ErrNotFound, …).
// Branch with errors.Is against a sentinel or with agentfiles.ErrorCode. TestErrorCodes
// produces each one through the public API.
//
//	NOT_FOUND             read, delete, list, edit, rename, grep or glob of a path where
//	                      nothing exists; a version that is not kept
//	ALREADY_EXISTS        WriteRequest.Exclusive on an existing file; a rename onto a file
//	                      without Overwrite; an Exclusive rename onto anything
//	IS_DIRECTORY          read of a directory; write where a directory (or the root) is
//	NOT_DIRECTORY         write below a file; list of a file with depth >= 1
//	INVALID_PATH          a path or project breaking the rules above
//	INVALID_OFFSET        negative offset; OVERWRITE past the end; TRUNCATE at offset > 0;
//	                      an offset inside a multi-byte character
//	NOT_EMPTY             delete of a non-empty directory without recursive
//	PERMISSION_DENIED     no identity in the context; delete of the root without allow_root_wipe
//	PAYLOAD_TOO_LARGE     content over max_payload_bytes
//	QUOTA_EXCEEDED        file over max_file_bytes (a replace_all too) or project over
//	                      max_project_bytes: the message says what files and kept versions hold
//	CONFLICT              Write's or Edit's ExpectedSHA256 differs from the file's: read it again;
//	                      a Snapshot's read or Commit met a change made after it (file_shell):
//	                      run the command again
//	NO_MATCH              an edit's OldStr occurs nowhere in the file
//	AMBIGUOUS_MATCH       an edit's OldStr occurs more than once without ReplaceAll
//	RATE_LIMITED          the tenant's token bucket is empty
//	RESOURCE_BUSY         the project's write lock was not acquired within the lock timeout
//	UNAVAILABLE           the store's database is down or unreachable: retry later
//	INVALID_ARGUMENT      bad mode, encoding, depth, limit or length; content not UTF-8; more
//	                      edits, edit work or renamed files than the call's budget (Budgets);
//	                      a bad grep pattern, glob, output mode, context or cursor
//	INVALID_CONFIG        a bad configuration value (NewService, LoadConfig); Arg names the key
//	TIMEOUT, CANCELED     the context, or the call's budget (call_timeout_ms), ended first;
//	                      TIMEOUT also when Grep's time budget ran out before it searched one file
//	INTERNAL              the store failed; the message hides the cause, Unwrap and logs keep it
//
// # Logging
//
// Options.Logger injects a *slog.Logger (default: discard). Each operation logs one record at
// Debug (Error for INTERNAL) with the operation, the tenant hash prefix, the user label,
// project, path and outcome code. Written content appears only as its length, plus its
// SHA-256 and a preview of at most 256 bytes marked truncated=true if so configured (both off
// by default). API keys are never logged: agentfiles.AuthContext's String and LogValue redact
// them.
//
// # Stores
//
// A store keeps the files: fileio/memstore in memory, fileio/pgstore on PostgreSQL. What a
// store implements — transactions, the history, the index-job outbox package search consumes,
// and optional interfaces that make calls cheaper without changing their answers — is package
// fileio/driver, for store authors; fileio/storetest is the acceptance suite every store passes.
//
// Service and every Store are safe for concurrent use.
package fileio
