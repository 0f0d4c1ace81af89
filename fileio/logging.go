package fileio

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/utf8cut"
)

// contentAttr describes written content for a log record without the content itself:
// its length, and only when configured its SHA-256 and a preview of at most
// Config.LogPreviewBytes bytes (cut at a character boundary, truncated=true when cut).
func contentAttr(content string, cfg *Config) slog.Attr {
	attrs := []slog.Attr{slog.Int("bytes", len(content))}
	if cfg.LogContentSHA256 {
		sum := sha256.Sum256([]byte(content))
		attrs = append(attrs, slog.String("sha256", hex.EncodeToString(sum[:])))
	}
	if n := cfg.LogPreviewBytes; n > 0 {
		preview, cut := utf8cut.Cut(content, n)
		attrs = append(attrs, slog.String("preview", preview))
		if cut {
			attrs = append(attrs, slog.Bool("truncated", true))
		}
	}
	return slog.Attr{Key: "content", Value: slog.GroupValue(attrs...)}
}

// logOp writes one record per operation: Debug on success and on the caller's mistakes,
// Error on INTERNAL. The record names the tenant by a hash prefix and the user label;
// never the API key, never content.
func (s *Service) logOp(ctx context.Context, op string, ac agentfiles.AuthContext, project, path string, err error, attrs ...slog.Attr) {
	level := slog.LevelDebug
	code := "OK"
	internal := false
	if err != nil {
		c := agentfiles.ErrorCode(err)
		code, internal = c.String(), c.Kind() == agentfiles.KindInternal
		if internal {
			level = slog.LevelError
		}
	}
	if !s.logger.Enabled(ctx, level) {
		return
	}
	base := []slog.Attr{
		slog.String("op", op),
		slog.Any("auth", ac),
		slog.String("project", project),
		slog.String("path", path),
		slog.String("code", code),
	}
	if internal {
		// The cause is for operators; stores keep file contents and secrets out of it.
		base = append(base, slog.String("error", err.Error()))
		var e *agentfiles.Error
		if errors.As(err, &e) && e.Err != nil {
			base = append(base, slog.String("cause", e.Err.Error()))
		}
	}
	s.logger.LogAttrs(ctx, level, "fileio."+op, append(base, attrs...)...)
}
