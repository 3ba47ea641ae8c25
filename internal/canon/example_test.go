package canon_test

import (
	"fmt"

	"github.com/headergold/headergold/internal/canon"
)

func ExampleCompact() {
	src := []byte(`{
	  "b": 1.0, "a": "\u003ctools\u003e \u00e9",
	  "10": -0, "2": 1e21, "b": 1e-7
	}`)
	out, err := canon.Compact(nil, src)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))

	_, err = canon.Compact(nil, []byte("{\n  \"a\": tru\n}"))
	fmt.Println(err)
	// Output:
	// {"2":1e+21,"10":0,"b":1e-7,"a":"<tools> é"}
	// line 2, column 8: invalid literal, expected true
}

func ExampleIndent() {
	out, err := canon.Indent(nil, []byte(`{"tools":[{"name":"read","parameters":{}}],"changes":[]}`), "  ")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// {
	//   "tools": [
	//     {
	//       "name": "read",
	//       "parameters": {}
	//     }
	//   ],
	//   "changes": []
	// }
}

func ExampleAppendString() {
	fmt.Println(string(canon.AppendString(nil, "a<b> & \"c\"\n\x1f")))
	// Output: "a<b> & \"c\"\n\u001f"
}
