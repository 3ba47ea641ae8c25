// Package canon writes JSON bytes exactly as JavaScript's JSON.stringify
// writes the value that JSON.parse reads from the same text.
//
// Request headers are compared byte for byte, and the system this project
// tests against is written in JavaScript, so "the same JSON" has to mean the
// same bytes JavaScript would send. The rules, in one place:
//
//   - Object members keep their source order. As in JavaScript, members whose
//     key is an array index ("0", "17", at most 4294967294, no leading zero)
//     come first in ascending numeric order, and a key written twice keeps
//     the position of its first occurrence and the value of its last.
//   - Strings are written with the shortest escapes JSON.stringify uses:
//     \" \\ \b \f \n \r \t, \u00xx (lowercase) for other control characters
//     and for lone surrogates, and every other character literally. No HTML
//     escaping; U+2028 and U+2029 stay literal.
//   - Numbers are read as IEEE 754 doubles and written in the shortest form
//     that reads back to the same double, in JavaScript's notation: 1.0 is
//     1, -0 is 0, 1e21 is 1e+21, 1e-7 is 1e-7, and a number too large for a
//     double is null.
//   - No whitespace in compact form; Indent produces JSON.stringify(x, null, n).
//
// Input must be valid UTF-8 JSON (RFC 8259); anything else is a *SyntaxError
// carrying the byte offset, line and column.
package canon
