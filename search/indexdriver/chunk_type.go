package indexdriver

// Chunk is one indexed piece of a stored file. StartByte and EndByte are byte offsets into the
// file's stored content, [StartByte, EndByte), so that file_read(path, StartByte,
// EndByte-StartByte) returns exactly Text.
type Chunk struct {
	Index       int    // 0-based position of the chunk in its file
	StartByte   int64  // inclusive byte offset into the file
	EndByte     int64  // exclusive byte offset into the file; may equal the file size
	Text        string // content[StartByte:EndByte]
	ContentHash string // hex SHA-256 of Text
}
