package canon_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// jsonGen writes random JSON texts aimed at the places where JavaScript's
// bytes differ from a naive encoder: number spellings, escapes, surrogates,
// array-index keys, duplicate keys and whitespace. Its output is always
// valid UTF-8, and valid JSON unless mutated.
type jsonGen struct {
	r  *rand.Rand
	sb strings.Builder
}

func newJSONGen(seed uint64) *jsonGen {
	return &jsonGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (g *jsonGen) text() string {
	g.sb.Reset()
	g.ws()
	g.value(0)
	g.ws()
	return g.sb.String()
}

func (g *jsonGen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

func (g *jsonGen) ws() {
	if g.r.IntN(4) == 0 {
		g.sb.WriteString(g.pick([]string{" ", "\n", "\t", "\r\n  ", "  "}))
	}
}

func (g *jsonGen) value(depth int) {
	n := 10
	if depth >= 4 {
		n = 5
	}
	switch k := g.r.IntN(n); {
	case k < 2:
		g.number()
	case k < 4:
		g.str(false)
	case k < 5:
		g.sb.WriteString(g.pick([]string{"true", "false", "null"}))
	case k < 8:
		g.object(depth)
	default:
		g.array(depth)
	}
}

func (g *jsonGen) object(depth int) {
	g.sb.WriteByte('{')
	n := g.r.IntN(6)
	for i := range n {
		if i > 0 {
			g.sb.WriteByte(',')
		}
		g.ws()
		g.str(true)
		g.ws()
		g.sb.WriteByte(':')
		g.ws()
		g.value(depth + 1)
		g.ws()
	}
	if n == 0 {
		g.ws()
	}
	g.sb.WriteByte('}')
}

func (g *jsonGen) array(depth int) {
	g.sb.WriteByte('[')
	n := g.r.IntN(5)
	for i := range n {
		if i > 0 {
			g.sb.WriteByte(',')
		}
		g.ws()
		g.value(depth + 1)
		g.ws()
	}
	g.sb.WriteByte(']')
}

var specialKeys = []string{
	`"0"`, `"1"`, `"2"`, `"10"`, `"01"`, `"-1"`, `"1.5"`, `"1e3"`, `" 1"`,
	`"4294967294"`, `"4294967295"`, `"4294967296"`, `"99999999999"`,
	`"\u0031"`, `"\u0061"`, `"a"`, `"b"`, `""`, `"__proto__"`, `"constructor"`, `"length"`,
}

var specialNumbers = []string{
	"0", "-0", "0.0", "-0.0", "0e0", "1e21", "1e+21", "1E21", "999999999999999999999",
	"999999999999999900000", "1e-6", "1e-7", "0.000001", "0.0000001", "9.999999999999999e-7",
	"1e400", "-1e400", "1e-400", "5e-324", "2e-324", "1.7976931348623157e308",
	"1.7976931348623159e308", "2.2250738585072014e-308", "9007199254740993",
	"123456789012345", "1234567890123456", "-12345678901234567", "0.1", "100", "1e2",
	"1.0", "1.500", "123e-20", "1e0000000000000000000001", "4.35", "0.30000000000000004",
}

func (g *jsonGen) number() {
	r := g.r
	switch r.IntN(5) {
	case 0:
		g.sb.WriteString(g.pick(specialNumbers))
		return
	case 1:
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		}
		prec := -1
		if r.IntN(3) == 0 {
			prec = r.IntN(25)
		}
		g.sb.WriteString(strconv.FormatFloat(f, g.pick([]string{"g", "e", "E"})[0], prec, 64))
		return
	}
	if r.IntN(3) == 0 {
		g.sb.WriteByte('-')
	}
	if r.IntN(5) == 0 {
		g.sb.WriteByte('0')
	} else {
		g.digits(1+r.IntN(25), true)
	}
	if r.IntN(2) == 0 {
		g.sb.WriteByte('.')
		g.digits(1+r.IntN(20), false)
	}
	if r.IntN(2) == 0 {
		g.sb.WriteString(g.pick([]string{"e", "E", "e+", "e-", "E-", "E+"}))
		g.digits(1+r.IntN(3), false)
	}
}

func (g *jsonGen) digits(n int, noLeadingZero bool) {
	for i := range n {
		d := g.r.IntN(10)
		if i == 0 && noLeadingZero && d == 0 {
			d = 1 + g.r.IntN(9)
		}
		g.sb.WriteByte(byte('0' + d))
	}
}

var literalRunes = []string{
	"é", "\u2028", "\u2029", "\uFFFD", "\uFEFF", "\uFFFF", "\uE000", "\uD7FF", "\U00010000",
	"\U0010FFFF", "\U0001F600", "日", "\x7f", "<", ">", "&", "'", "/", " ",
}

var shortEscapes = []string{`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`}

func (g *jsonGen) str(key bool) {
	r := g.r
	if key && r.IntN(2) == 0 {
		g.sb.WriteString(g.pick(specialKeys))
		return
	}
	g.sb.WriteByte('"')
	for range r.IntN(7) {
		switch r.IntN(8) {
		case 0, 1:
			for range 1 + r.IntN(4) {
				c := byte(' ' + r.IntN(95))
				if c == '"' || c == '\\' {
					c = 'x'
				}
				g.sb.WriteByte(c)
			}
		case 2:
			g.sb.WriteString(g.pick(shortEscapes))
		case 3:
			g.unit(uint16(r.IntN(0x10000)))
		case 4:
			g.unit(uint16(r.IntN(0x20)))
		case 5: // surrogate pair, lone half, or reversed pair
			hi, lo := uint16(0xD800+r.IntN(0x400)), uint16(0xDC00+r.IntN(0x400))
			switch r.IntN(4) {
			case 0:
				g.unit(hi)
			case 1:
				g.unit(lo)
			case 2:
				g.unit(lo)
				g.unit(hi)
			default:
				g.unit(hi)
				g.unit(lo)
			}
		default:
			g.sb.WriteString(g.pick(literalRunes))
		}
	}
	g.sb.WriteByte('"')
}

// unit writes \uXXXX with random hex case.
func (g *jsonGen) unit(u uint16) {
	h := strconv.FormatUint(uint64(u)|0x10000, 16)[1:]
	if g.r.IntN(2) == 0 {
		h = strings.ToUpper(h)
	}
	g.sb.WriteString(`\u` + h)
}

// mutate returns text with one random rune deleted, inserted or the text
// truncated, keeping valid UTF-8; the result may or may not be valid JSON.
func (g *jsonGen) mutate(text string) string {
	rs := []rune(text)
	if len(rs) == 0 {
		return "x"
	}
	i := g.r.IntN(len(rs))
	switch g.r.IntN(3) {
	case 0:
		rs = append(rs[:i], rs[i+1:]...)
	case 1:
		ins := []rune(`{}[],:"\ 0-.eE+tfnu` + "\x01\u2028")
		rs = append(rs[:i], append([]rune{ins[g.r.IntN(len(ins))]}, rs[i:]...)...)
	default:
		rs = rs[:i]
	}
	return string(rs)
}
