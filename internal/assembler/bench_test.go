package assembler_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/assembler"
)

// realisticNames are tool names as agents ship them: snake case, many shared
// prefixes.
var realisticNames = []string{
	"bash", "create_goal", "edit", "get_goal", "interrupt_agent", "job_kill", "job_list",
	"job_output", "list_agents", "list_dir", "ralph", "read", "read_file", "read_many_files",
	"send_message", "skill", "subagent", "subagent_fork", "todo_write", "update_goal",
	"workflow", "write", "write_file", "web_fetch", "web_search", "grep_search",
}

// benchTools returns n distinct realistic tools in a shuffled order.
func benchTools(n int) []assembler.Tool {
	out := make([]assembler.Tool, n)
	for i := range out {
		base := realisticNames[i%len(realisticNames)]
		name := base
		if i >= len(realisticNames) {
			name = fmt.Sprintf("%s_%d", base, i/len(realisticNames))
		}
		out[i] = assembler.Tool{
			Name:        name,
			Description: "Run " + name + " on the workspace and return its output; see the docs for limits.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string",` +
				`"description":"Path relative to the workspace."},"limit":{"type":"number"}},"required":["path"]}`),
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(n, func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// benchService registers ts across ten providers.
func benchService(b *testing.B, cfg assembler.Config, ts []assembler.Tool) *assembler.Service {
	s := mustNew(b, cfg)
	const providers = 10
	for p := range providers {
		var mine []assembler.Tool
		for i := p; i < len(ts); i += providers {
			mine = append(mine, ts[i])
		}
		mustAdd(b, s, fmt.Sprintf("provider-%d", p), mine...)
	}
	return s
}

func reportPerTool(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/tool")
}

// BenchmarkAssemble measures Assemble beside two baselines over the same
// tools: sort.Strings of their names (a copy then the sort) and a plain
// json.Marshal of the tool slice. The toolOrder case lists up to 49 tool
// names plus the rest entry (50 entries; at 10 tools, all 10 plus the rest).
func BenchmarkAssemble(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		ts := benchTools(n)
		names := make([]string, n)
		for i, t := range ts {
			names[i] = t.Name
		}
		listed := append(append([]string(nil), names[:min(49, n)]...), assembler.RestEntry)

		b.Run(fmt.Sprintf("tools=%d/absent", n), func(b *testing.B) {
			s := benchService(b, assembler.Config{Model: "m"}, ts)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Assemble(); err != nil {
					b.Fatal(err)
				}
			}
			reportPerTool(b, n)
		})
		b.Run(fmt.Sprintf("tools=%d/toolOrder50", n), func(b *testing.B) {
			s := benchService(b, assembler.Config{Model: "m", ToolOrder: assembler.NewToolOrder(listed...)}, ts)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Assemble(); err != nil {
					b.Fatal(err)
				}
			}
			reportPerTool(b, n)
		})
		b.Run(fmt.Sprintf("tools=%d/baseline=sort.Strings", n), func(b *testing.B) {
			scratch := make([]string, n)
			b.ReportAllocs()
			for b.Loop() {
				copy(scratch, names)
				sort.Strings(scratch)
			}
			reportPerTool(b, n)
		})
		b.Run(fmt.Sprintf("tools=%d/baseline=json.Marshal", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(ts); err != nil {
					b.Fatal(err)
				}
			}
			reportPerTool(b, n)
		})
	}
}

// namePairs returns every ordered pair of realistic names, and pairs with a
// long shared prefix.
func namePairs() [][2]string {
	var pairs [][2]string
	for _, a := range realisticNames {
		for _, b := range realisticNames {
			pairs = append(pairs, [2]string{a, b})
		}
	}
	long := strings.Repeat("mcp__server__", 3)
	for _, a := range realisticNames[:8] {
		pairs = append(pairs, [2]string{long + a, long + realisticNames[len(realisticNames)-1]})
	}
	return pairs
}

// BenchmarkCompareUTF16 compares CompareUTF16 with Go's < (and
// strings.Compare) on the same pairs of ASCII tool names.
func BenchmarkCompareUTF16(b *testing.B) {
	pairs := namePairs()
	var sink int
	report := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(pairs)), "ns/pair")
	}
	b.Run("CompareUTF16", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			for _, p := range pairs {
				if assembler.CompareUTF16(p[0], p[1]) < 0 {
					n++
				}
			}
		}
		sink += n
		report(b)
	})
	b.Run("baseline=GoLess", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			for _, p := range pairs {
				if p[0] < p[1] {
					n++
				}
			}
		}
		sink += n
		report(b)
	})
	b.Run("baseline=strings.Compare", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			for _, p := range pairs {
				if strings.Compare(p[0], p[1]) < 0 {
					n++
				}
			}
		}
		sink += n
		report(b)
	})
	_ = sink
}
