package fileiotools

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/archive"
)

type fileImportIn struct {
	projectArg
	Path    string `json:"path,omitempty" jsonschema:"directory to import into, e.g. '/site'; default '' (the project root)"`
	Archive string `json:"archive" jsonschema:"the tar, tar.gz or zip archive, Base64-encoded (standard alphabet); the format is detected from its bytes"`
	Mode    string `json:"mode,omitempty" jsonschema:"merge (default): write the archive's files and keep the others; replace: also delete the files below path that the archive does not hold"`
	Strict  bool   `json:"strict,omitempty" jsonschema:"true: refuse the whole archive when a file is not UTF-8 text; default false: skip such files and list them in skipped"`
}

type fileExportIn struct {
	projectArg
	Path   string `json:"path,omitempty" jsonschema:"directory (or file) to export, e.g. '/site'; default '' (the whole project); entry names are relative to it"`
	Glob   string `json:"glob,omitempty" jsonschema:"only files matching this glob, as file_grep's: '*.md' base names, 'docs/**' paths relative to path"`
	Format string `json:"format,omitempty" jsonschema:"tar (default), tar.gz or zip"`
}

type fileExportOut struct {
	fileio.ExportResult
	Archive string `json:"archive"` // Base64
}

// archiveTools are file_import and file_export over svc: the archive travels Base64-encoded
// inside the call, up to Config.MaxPayloadBytes decoded (the size a request body is made for);
// larger archives go through the HTTP routes (adapters/httpapi.ArchiveHandler).
func archiveTools(svc *fileio.Service, cfg fileio.Config) []adapters.Tool {
	limit := cfg.MaxPayloadBytes
	tooLarge := func(what string) error {
		return agentfiles.NewError(agentfiles.CodePayloadTooLarge, fmt.Sprintf(
			"the %s archive is larger than %s, the most a tool call carries; use PUT or GET /archive/{project} over HTTP, or one directory at a time", what, sizeText(limit)), "archive")
	}
	imp := adapters.NewTool("file_import", "Import an archive",
		"Loads a tar, tar.gz or zip archive (Base64 in archive, at most "+sizeText(limit)+" decoded; larger ones through "+
			"PUT /archive/{project} over HTTP) into a project directory, all or nothing: entry 'docs/a.md' imported at "+
			"path '/site' becomes '/site/docs/a.md'. mode merge (default) keeps other files; replace makes the directory "+
			"equal to the archive. Each file is written as by file_write (old content kept in file_versions). The whole "+
			"archive is read and checked before anything is written. Refused with the entry named, nothing imported: '..' "+
			"or absolute names, two entries naming one path, a file over "+sizeText(cfg.MaxFileBytes)+", a project over "+
			sizeText(cfg.MaxProjectBytes)+" or "+fmt.Sprint(cfg.MaxProjectFiles)+" files (empty ones count) (QUOTA_EXCEEDED), more than "+
			fmt.Sprint(cfg.MaxArchiveEntries)+" entries (PAYLOAD_TOO_LARGE). Files that are not UTF-8 text and links are skipped and "+
			"listed in skipped (strict=true refuses them; the first "+fmt.Sprint(fileio.MaxSkippedListed)+", skipped_total counts them all). "+
			"Returns files, created, replaced, deleted, bytes, skipped. Example: "+
			"{\"project\": \"demo\", \"path\": \"/site\", \"archive\": \"H4sIAAAAAAAA...\", \"mode\": \"replace\"}.",
		adapters.Annotations{Destructive: true},
		func(ctx context.Context, in fileImportIn) (fileio.ImportResult, error) {
			if int64(base64.StdEncoding.DecodedLen(len(in.Archive))) > limit+2 {
				return fileio.ImportResult{}, tooLarge("")
			}
			data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(in.Archive))
			if err != nil {
				return fileio.ImportResult{}, agentfiles.NewError(agentfiles.CodeInvalidArgument, "archive is not valid Base64 (standard alphabet, with padding): "+err.Error(), "archive")
			}
			return svc.Import(ctx, fileio.ImportRequest{Project: in.Project, Path: in.Path, Mode: fileio.ImportMode(in.Mode), Strict: in.Strict, Archive: bytes.NewReader(data)})
		})
	imp.RedactArgs = []string{"archive"}
	exp := adapters.NewTool("file_export", "Export as an archive",
		"Returns the files below path (the whole project by default), or matching glob, as one archive in archive "+
			"(Base64; format tar, tar.gz or zip), a consistent snapshot: entry names are relative to path, so "+
			"file_import at the same path gives the same files back. At most "+sizeText(limit)+" of archive; larger "+
			"exports through GET /archive/{project} over HTTP (PAYLOAD_TOO_LARGE says so). NOT_FOUND when path does not "+
			"exist. Example: {\"project\": \"demo\", \"path\": \"/site\", \"format\": \"zip\"}.",
		adapters.Annotations{ReadOnly: true, Idempotent: true},
		func(ctx context.Context, in fileExportIn) (fileExportOut, error) {
			buf := &cappedBuffer{max: limit}
			res, err := svc.Export(ctx, fileio.ExportRequest{Project: in.Project, Path: in.Path, Glob: in.Glob, Format: archive.Format(in.Format)}, buf)
			if buf.over {
				return fileExportOut{}, tooLarge("exported")
			}
			if err != nil {
				return fileExportOut{}, err
			}
			return fileExportOut{ExportResult: res, Archive: base64.StdEncoding.EncodeToString(buf.Bytes())}, nil
		})
	return []adapters.Tool{imp, exp}
}

// cappedBuffer is a bytes.Buffer that refuses to grow past max bytes.
type cappedBuffer struct {
	bytes.Buffer
	max  int64
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if int64(c.Len()+len(p)) > c.max {
		c.over = true
		return 0, fmt.Errorf("archive over %d bytes", c.max)
	}
	return c.Buffer.Write(p)
}
