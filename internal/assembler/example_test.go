package assembler_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/headergold/headergold/internal/assembler"
)

func ExampleService_Assemble() {
	var cfg assembler.Config
	_ = json.Unmarshal([]byte(`{"persona": "You are terse.", "model": "m-1",
		"toolOrder": ["shell", "<unlisted-tools>"]}`), &cfg)
	s, err := assembler.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Plugins may register in any order, from any goroutine.
	_ = s.AddProvider("fs", assembler.Tool{Name: "write"}, assembler.Tool{Name: "read",
		Parameters: json.RawMessage(`{ "type": "object", "max": 1.0 }`)})
	_ = s.AddProvider("exec", assembler.Tool{Name: "shell", Description: "Run <cmd>."})

	h, err := s.Assemble()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h.ToolNames())
	fmt.Println(string(h.Bytes()))
	// Output:
	// [shell read write]
	// {"config":{"model":"m-1"},"system":"You are terse.","tools":[{"name":"shell","description":"Run <cmd>."},{"name":"read","parameters":{"type":"object","max":1}},{"name":"write"}]}
}

func ExampleService_Assemble_unknownTool() {
	s, _ := assembler.New(assembler.Config{ToolOrder: assembler.NewToolOrder("grep", assembler.RestEntry)})
	_ = s.AddProvider("fs", assembler.Tool{Name: "read"})
	_, err := s.Assemble()
	fmt.Println(err)
	// Output:
	// toolOrder names an unknown tool: "grep"; known tools: "read"
}

func ExampleCompareUTF16() {
	names := []string{"\uFF61", "\U0001F600", "b", "a"}
	slices.SortFunc(names, assembler.CompareUTF16)
	fmt.Printf("JavaScript order: %+q\n", names)
	sort.Strings(names)
	fmt.Printf("Go byte order:    %+q\n", names)
	// Output:
	// JavaScript order: ["a" "b" "\U0001f600" "\uff61"]
	// Go byte order:    ["a" "b" "\uff61" "\U0001f600"]
}

// A listener changes the tool list it is handed by returning the list
// that the list's methods make; the list it was handed is unchanged.
func ExampleTools() {
	s, _ := assembler.New(assembler.Config{Model: "m-1"})
	_ = s.AddProvider("fs", assembler.Tool{Name: "read"}, assembler.Tool{Name: "shell"}, assembler.Tool{Name: "write"})
	s.AddListener("shell-last", func(a assembler.Assembly) (assembler.Assembly, error) {
		if i := a.Tools.Index("shell"); i >= 0 {
			a.Tools = a.Tools.Move(i, a.Tools.Len()-1)
		}
		var err error
		a.Tools, err = a.Tools.Insert(0, assembler.Tool{Name: "plan", Parameters: json.RawMessage(`{ "type": "object" }`)})
		return a, err
	})
	h, err := s.Assemble()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h.ToolNames())
	fmt.Println(string(h.ToolJSON(0)))
	// Output:
	// [plan read write shell]
	// {"name":"plan","parameters":{"type":"object"}}
}
