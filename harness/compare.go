package harness

// Compare locates the first difference between want, the expected
// contents of file, and got, as a replay reports it: the line, the event
// and JSON path for a log, both sides windowed around the first differing
// byte. It returns nil when they are equal.
func Compare(file string, want, got []byte) *Mismatch { return compareFile(file, want, got) }
