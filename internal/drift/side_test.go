package drift

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/tidwall/gjson"
)

// TestJSONIntIsGJSONInt holds the fast path of jsonInt to what it stands
// for, gjson's Int, on the integers it reads itself and on the values it
// hands to gjson.
func TestJSONIntIsGJSONInt(t *testing.T) {
	cases := []string{
		"0", "-0", "7", "-7", "42", "123456789012345678", "-123456789012345678",
		"999999999999999999", "1234567890123456789", "9223372036854775807",
		"-9223372036854775808", "18446744073709551616", "1.5", "2.0", "1e3",
		"-1E2", "01", "", "-", "--1", "1-", `"3"`, "null", "true", "[1]",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := rng.Int64N(1 << 62)
		if rng.IntN(2) == 0 {
			n = -n
		}
		cases = append(cases, strconv.FormatInt(n, 10), strconv.FormatInt(n%1000, 10))
	}
	for _, c := range cases {
		if got, want := jsonInt([]byte(c)), int(gjson.Parse(c).Int()); got != want {
			t.Errorf("jsonInt(%q) = %d, gjson's Int %d", c, got, want)
		}
	}
}
