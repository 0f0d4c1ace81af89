// Package patch parses and applies the multi-file patches models write: OpenAI's apply_patch
// format (V4A), unified diffs as git diff writes them, and the operations of the Responses
// API's apply_patch tool. It knows nothing of stores; package fileio applies a parsed Patch to
// a project in one transaction (Service.ApplyPatch).
//
// # Dialects
//
// Parse detects the dialect from the text:
//
//	V4A       *** Begin Patch … *** End Patch, with *** Add File:, *** Delete File:,
//	          *** Update File: (optionally *** Move to:), @@ chunks with optional anchor
//	          text, " "/"-"/"+" lines and *** End of File; a <<'EOF' … EOF heredoc
//	          wrapper around it is removed
//	unified   diff --git a/x b/x sections (or bare ---/+++ pairs), /dev/null for added and
//	          deleted files, rename from/to, new/deleted file mode, @@ -l,n +l,n @@ hunks
//	          whose line numbers are hints, "\ No newline at end of file"
//
// ParseOperations reads the Responses API form: create_file, update_file and delete_file
// operations whose diff is the V4A body without the envelope.
//
// # Matching
//
// ApplyUpdate finds each chunk's old lines (context and removed lines) in the file, in order,
// each after the previous one. It tries four passes, from strict to loose, and reports per
// chunk which one matched and at which line:
//
//	exact        byte for byte
//	trailing     ignoring whitespace at the ends of lines
//	whitespace   ignoring whitespace at both ends of lines
//	unicode      also reading typographic dashes, quotes and odd spaces as ASCII
//
// An @@ anchor line of V4A is found first (with the same passes) and the chunk is searched
// from that line on (a chunk of added lines alone goes just below it); a unified hunk's line
// number picks the nearest of several matches.
//
// # Exactly the change
//
// Whatever pass matched, lines the patch shows as context keep the file's own bytes; only
// removed lines go and added lines come. A file whose lines end in CRLF keeps CRLF, added
// lines included; a UTF-8 byte order mark stays; a file without a final newline keeps having
// none unless a unified diff says otherwise with "\ No newline at end of file".
//
// # Errors
//
// Errors are *agentfiles.Error: INVALID_PATCH for text that is not a patch (naming the line
// of the patch), NO_MATCH for a chunk whose lines are not in the file (naming the chunk, its
// first lines, and the closest lines of the file), INVALID_ARGUMENT when matching would pass
// the work budget.
package patch
