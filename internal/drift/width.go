package drift

import "unicode"

// wideRanges are the common ranges a terminal draws two columns wide:
// East Asian Wide and Fullwidth characters (CJK, kana, Hangul, Yi,
// fullwidth forms), the emoji blocks shown as pictures, and the wide
// symbols of blocks that mix narrow and wide ones (U+2600 Miscellaneous
// Symbols), one by one.
var wideRanges = [...][2]rune{
	{0x1100, 0x115F}, // Hangul Jamo initial consonants
	// Symbols Unicode marks wide in blocks of mostly narrow ones (✅ ❌ ⭐
	// ⌛ ⏩ ⬛, zodiac, sports): each listed, its block not.
	{0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC}, {0x23F0, 0x23F0}, {0x23F3, 0x23F3},
	{0x25FD, 0x25FE}, {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267F, 0x267F}, {0x2693, 0x2693},
	{0x26A1, 0x26A1}, {0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5}, {0x26CE, 0x26CE},
	{0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F3}, {0x26F5, 0x26F5}, {0x26FA, 0x26FA},
	{0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B}, {0x2728, 0x2728}, {0x274C, 0x274C},
	{0x274E, 0x274E}, {0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797}, {0x27B0, 0x27B0},
	{0x27BF, 0x27BF}, {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55},
	{0x2E80, 0x303E},                                                               // CJK radicals, Kangxi, CJK symbols and punctuation
	{0x3041, 0x33FF},                                                               // kana, Bopomofo, Hangul compatibility jamo, enclosed CJK
	{0x3400, 0x4DBF},                                                               // CJK Extension A
	{0x4E00, 0x9FFF},                                                               // CJK Unified Ideographs
	{0xA000, 0xA4CF},                                                               // Yi
	{0xA960, 0xA97F},                                                               // Hangul Jamo Extended-A
	{0xAC00, 0xD7A3},                                                               // Hangul syllables
	{0xF900, 0xFAFF},                                                               // CJK Compatibility Ideographs
	{0xFE10, 0xFE19},                                                               // vertical forms
	{0xFE30, 0xFE6F},                                                               // CJK compatibility and small form variants
	{0xFF00, 0xFF60},                                                               // fullwidth forms
	{0xFFE0, 0xFFE6},                                                               // fullwidth signs
	{0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF}, {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, // 🀄 🃏 🆎 🆑–🆚
	{0x1F200, 0x1F202}, {0x1F210, 0x1F23B}, {0x1F240, 0x1F248}, {0x1F250, 0x1F251}, // enclosed ideographs
	{0x1F260, 0x1F265},
	{0x1F300, 0x1F64F}, // pictographs, emoticons
	{0x1F680, 0x1F6FF}, // transport and map symbols
	{0x1F7E0, 0x1F7EB}, // coloured circles and squares
	{0x1F900, 0x1F9FF}, // supplemental symbols and pictographs
	{0x1FA70, 0x1FAFF}, // symbols and pictographs Extended-A
	{0x20000, 0x3FFFD}, // CJK Extensions B and later
}

// runeWidth is how many columns a terminal gives r: 0 for a combining
// mark, a zero-width joiner or a variation selector, which draw on the
// character before; 2 for a wide character; 1 otherwise. It is the common
// rule, not every terminal's: the caret under a difference is placed by
// it, and the standard library has no East Asian width table.
func runeWidth(r rune) int {
	switch {
	case r == 0x200D || 0xFE00 <= r && r <= 0xFE0F || unicode.In(r, unicode.Mn, unicode.Me):
		return 0
	case r < 0x1100:
		return 1
	}
	for _, w := range wideRanges {
		if w[0] <= r && r <= w[1] {
			return 2
		}
	}
	return 1
}

// displayWidth is the number of columns s takes in a terminal (see
// runeWidth).
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}
