package harness

import (
	"fmt"

	"github.com/headergold/headergold/internal/assembler"
)

// listener turns a declarative op into a system-prompt/assemble listener.
// Each call builds what it adds afresh, so nothing is shared between
// assemblies; what it keeps of the list it was handed is shared, as the
// list is immutable.
func (l ListenerOp) listener() assembler.Listener {
	switch l.Op {
	case "addTool":
		return func(a assembler.Assembly) (assembler.Assembly, error) {
			t := l.Schema.internal()
			at := a.Tools.Len()
			if l.At != nil {
				at = *l.At
			}
			if at < 0 || at > a.Tools.Len() {
				return a, fmt.Errorf("addTool %q: position %d is outside the %d tools", t.Name, at, a.Tools.Len())
			}
			var err error
			a.Tools, err = a.Tools.Insert(at, t) // its error names the tool
			return a, err
		}
	case "removeTool":
		return func(a assembler.Assembly) (assembler.Assembly, error) {
			for i := a.Tools.Index(l.Tool); i >= 0; i = a.Tools.Index(l.Tool) {
				a.Tools = a.Tools.Remove(i)
			}
			return a, nil
		}
	case "moveToEnd":
		return func(a assembler.Assembly) (assembler.Assembly, error) {
			// Every tool of the name, in the order they had; the list
			// keeps its records, so nothing is copied.
			n := 0
			for i := a.Tools.Index(l.Tool); i >= 0 && i < a.Tools.Len()-n; i = a.Tools.Index(l.Tool) {
				a.Tools = a.Tools.Move(i, a.Tools.Len()-1)
				n++
			}
			return a, nil
		}
	case "reverse":
		return func(a assembler.Assembly) (assembler.Assembly, error) {
			a.Tools = a.Tools.Reverse()
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
