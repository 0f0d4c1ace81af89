package fileid

import "strconv"

// HumanSize formats a byte count the way the listing shows it: "512b", "2.5kb", "1.8mb",
// "1.1gb" (powers of 1024, one decimal, a trailing ".0" dropped).
func HumanSize(sizeBytes int64) string {
	const unit = 1024
	if sizeBytes < unit {
		return strconv.FormatInt(sizeBytes, 10) + "b"
	}
	value := float64(sizeBytes)
	suffixes := []string{"kb", "mb", "gb", "tb"}
	var suffix string
	for _, suffix = range suffixes {
		value /= unit
		if value < unit {
			break
		}
	}
	s := strconv.FormatFloat(value, 'f', 1, 64)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s + suffix
}
