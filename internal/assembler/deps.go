package assembler

import (
	"fmt"
	"slices"
	"strings"
)

// Deps maps a tool name to the names of the tools it depends on: tools that
// must have completed successfully before it runs. Tools sharing a name
// share the union of their declarations.
type Deps map[string][]string

// DependsOn reports whether tool a declares a dependency on tool b.
func (d Deps) DependsOn(a, b string) bool { return slices.Contains(d[a], b) }

// depsOf collects the declared dependencies of tools, in declaration order
// without repeats.
func depsOf(tools []*canonicalTool) Deps {
	d := Deps{}
	for _, t := range tools {
		for _, dep := range t.tool.DependsOn {
			if !slices.Contains(d[t.tool.Name], dep) {
				d[t.tool.Name] = append(d[t.tool.Name], dep)
			}
		}
	}
	return d
}

// checkDeps requires the dependency graph over tools to name only tools in
// it and to be acyclic. Tools are visited in header order, so the error
// (the first unknown dependency, or the first cycle spelled a -> b -> a) does
// not depend on registration order.
func checkDeps(tools []*canonicalTool, d Deps) error {
	var names []string
	known := map[string]bool{}
	for _, t := range tools {
		if !known[t.tool.Name] {
			known[t.tool.Name] = true
			names = append(names, t.tool.Name)
		}
	}
	for _, n := range names {
		for _, dep := range d[n] {
			if !known[dep] {
				return fmt.Errorf("tool %q depends on %q, which is not registered; known tools: %s", n, dep, quoteList(names))
			}
		}
	}
	const (
		unvisited = iota
		onPath
		finished
	)
	state := make(map[string]int, len(names))
	var path []string
	var visit func(n string) []string
	visit = func(n string) []string {
		state[n] = onPath
		path = append(path, n)
		for _, dep := range d[n] {
			switch state[dep] {
			case onPath:
				return append(slices.Clone(path[slices.Index(path, dep):]), dep)
			case unvisited:
				if cycle := visit(dep); cycle != nil {
					return cycle
				}
			}
		}
		path = path[:len(path)-1]
		state[n] = finished
		return nil
	}
	for _, n := range names {
		if state[n] == unvisited {
			if cycle := visit(n); cycle != nil {
				return fmt.Errorf("tool dependencies form a cycle: %s", strings.Join(cycle, " -> "))
			}
		}
	}
	return nil
}
