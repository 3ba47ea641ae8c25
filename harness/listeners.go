package harness

import (
	"fmt"
	"slices"

	"github.com/headergold/headergold/internal/assembler"
)

// listener turns a declarative op into a system-prompt/assemble listener.
// Each call builds what it adds afresh, so nothing is shared between
// assemblies.
func (l ListenerOp) listener() assembler.Listener {
	switch l.Op {
	case "addTool":
		return func(a assembler.Assembly) (assembler.Assembly, error) {
			t := l.Schema.internal()
			t.Parameters = slices.Clone(t.Parameters)
			t.DependsOn = slices.Clone(t.DependsOn)
			at := len(a.Tools)
			if l.At != nil {
				at = *l.At
			}
			if at < 0 || at > len(a.Tools) {
				return a, fmt.Errorf("addTool %q: position %d is outside the %d tools", t.Name, at, len(a.Tools))
			}
			a.Tools = slices.Insert(a.Tools, at, t)
			return a, nil
		}
	case "removeTool":
		return func(a assembler.Assembly) (assembler.Assembly, error) {
			a.Tools = slices.DeleteFunc(a.Tools, func(t assembler.Tool) bool { return t.Name == l.Tool })
			return a, nil
		}
	case "moveToEnd":
		return func(a assembler.Assembly) (assembler.Assembly, error) {
			var moved []assembler.Tool
			a.Tools = slices.DeleteFunc(a.Tools, func(t assembler.Tool) bool {
				if t.Name == l.Tool {
					moved = append(moved, t)
					return true
				}
				return false
			})
			a.Tools = append(a.Tools, moved...)
			return a, nil
		}
	case "reverse":
		return func(a assembler.Assembly) (assembler.Assembly, error) {
			slices.Reverse(a.Tools)
			return a, nil
		}
	case "appendSection":
		return func(a assembler.Assembly) (assembler.Assembly, error) {
			a.Sections = append(a.Sections, l.Section.internal())
			return a, nil
		}
	}
	// validate rejects unknown ops before a fixture runs.
	panic("harness: unvalidated listener op " + l.Op)
}
