package canon

import "unsafe"

// View reads b as a string without copying it, for a parse (gjson's) of
// bytes that may be hundreds of megabytes. The string shares b's bytes:
// b must not change while the string, or anything taken from it, is in
// use.
func View(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
