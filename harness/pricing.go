package harness

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/drift"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/tidwall/gjson"
)

// The cost of a header's drift (SPEC §7), as replay diff prints it, for
// every failing replay whose headers differ (priceDrift, computed only
// when the failure is reported).
//
// A pinned fixture's golden files hold its full headers: the config in
// the golden log, the system text in NAME.system.md and the tools in
// NAME.tools.json. On a failure, the golden headers are put back into the
// golden log, the result is compared with the run's full log by package
// drift, and the cache lines of the first differing header are attached to
// the first golden or sidecar failure. Another fixture's golden log is
// compared as it is, templated, with the run's full log
// (attachGoldenCost); a permutation run's log and a captured scenario's
// repeat run's log with the first run's, both full.

// checkGolden holds a golden file that is about to be parsed to the
// limits of every log reader (drift.CheckRecord): each line of a golden
// log, or the whole of a JSON sidecar. A file past them cannot be tested.
func checkGolden(file string, data []byte, lines bool) *Failure {
	var err error
	if lines {
		err = drift.CheckLines(file, data)
	} else {
		err = drift.CheckRecord(file, 1, data)
	}
	if err == nil {
		return nil
	}
	f := &Failure{Check: CheckInvalid, File: file, Msg: err.Error()}
	if ie, ok := err.(*drift.InputError); ok {
		f.Line, f.Msg = ie.Line, ie.Err.Error()
		if ie.Column > 0 {
			f.Msg = fmt.Sprintf("column %d: %v", ie.Column, ie.Err)
		}
	}
	return f
}

// checkSidecar is checkGolden for a sidecar that differs from what the run
// produced (one that does not is not parsed): the tools sidecar is JSON
// held to the limits; the system sidecar is text, compared as lines.
func checkSidecar(file string, want, got []byte) *Failure {
	if bytes.Equal(want, got) || !strings.HasSuffix(file, ".tools.json") {
		return nil
	}
	return checkGolden(file, want, false)
}

// withinLimits reports whether data may be handed to gjson's recursive
// validation.
func withinLimits(data []byte) bool { return drift.CheckRecord("", 1, data) == nil }

// attachCost prices the drift of a pinned fixture's failing replay and
// attaches the lines to the first golden or sidecar failure that has a
// mismatch. Nothing is attached when the golden files cannot be read or
// put together, when one of them differs first in its form (CRLF line
// endings, a byte order mark, bytes that are not UTF-8), or no header
// differs.
func attachCost(fails []Failure, golden, system, tools string, out *Outputs, limit ByteSize) {
	at := -1
	for i, f := range fails {
		if (f.Check == CheckGolden || f.Check == CheckSidecar) && f.Mismatch != nil {
			if f.Mismatch.form {
				// A golden file converted (CRLF, a byte order mark) or
				// not UTF-8 cannot be put together into the header it
				// stands for: its failure says so, and no header drifted.
				return
			}
			if at < 0 {
				at = i
			}
		}
	}
	if at < 0 || out == nil || len(out.fullLog()) == 0 {
		return
	}
	var files [3][]byte
	for i, name := range []string{golden, system, tools} {
		b, err := readRegular(name, limit)
		if err != nil {
			return
		}
		files[i] = b
	}
	if checkGolden(golden, files[0], true) != nil || checkGolden(tools, files[2], false) != nil {
		return
	}
	want, ok := pinnedLog(files[0], files[1], files[2], out.fullLog())
	if !ok {
		return
	}
	priceDrift(fails[at].Mismatch, golden, want, "this run", out.fullLog())
}

// priceDrift compares two full or templated logs with package drift, a
// the one whose prefix the provider has cached and b the one sent next,
// and attaches to m what replay diff reports for their first differing
// header: its kinds, the tools that moved, appeared or went, and its cost
// in prompt caching (SPEC §7). It is only called for a failure being
// reported, never on a passing replay. It returns drift's result, nil
// when the logs cannot be compared.
func priceDrift(m *Mismatch, nameA string, a []byte, nameB string, b []byte) *drift.Result {
	res, err := drift.Compare(drift.Source{Name: nameA, Reader: bytes.NewReader(a)},
		drift.Source{Name: nameB, Reader: bytes.NewReader(b)}, drift.Options{Format: drift.FormatLog})
	if err != nil {
		return nil
	}
	if res.Identical || m == nil {
		return res
	}
	if d := res.First; d != nil {
		for _, k := range d.Kinds {
			m.Kinds = append(m.Kinds, string(k))
		}
		if t := d.Tools; t != nil {
			m.Moved, m.Added, m.Removed = slices.Clone(t.Moved), slices.Clone(t.Added), slices.Clone(t.Removed)
		}
	}
	m.Cache, m.CostNote = res.CacheLines(), res.CacheNote
	if c := res.Cache; c != nil {
		m.Cost = &CacheCost{Provider: c.Provider, Order: slices.Clone(c.Order), HeaderTokens: c.HeaderTokens,
			KeptTokens: c.KeptTokens, LostTokens: c.LostTokens, Tokenizer: c.Tokenizer, Estimate: c.Estimate,
			MinCacheable: c.MinCacheable, BelowMinimum: c.BelowMinimum, WriteMultiplier: c.WriteMultiplier,
			ReadMultiplier: c.ReadMultiplier, ExtraInputTokens: c.ExtraInputTokens, RatesAsOf: c.RatesAsOf, Source: c.Source}
	}
	if p := res.CacheAt; p != nil {
		m.CostAt = &CachePlace{Segment: p.Segment, Offset: p.Offset, Length: p.Length}
	}
	return res
}

// attachGoldenCost prices the drift of a fixture that is not pinned,
// whose templated golden log want differs from the run's: the first
// golden failure with a mismatch gets what drift makes of the golden log
// against the run's full log. The golden log holds placeholders for
// system and tools, so only what can be known without them is priced (a
// config of another value loses the whole prefix, counted from the run's
// bytes; a header change only the run records is priced from the run's
// headers before and after it); otherwise the note says why not.
func attachGoldenCost(fails []Failure, golden string, want []byte, out *Outputs) {
	for _, f := range fails {
		if f.Check != CheckGolden || f.Mismatch == nil {
			continue
		}
		if f.Mismatch.form || out == nil || len(out.fullLog()) == 0 {
			return
		}
		priceDrift(f.Mismatch, golden, want, "this run", out.fullLog())
		return
	}
}

// pinnedLog puts the headers of a pinned fixture's sidecars back into its
// golden log: the system text of each header from systemMD (header 1, then
// each marker's header on), its tools from toolsJSON (the initial list,
// then one change wherever the run's tools change, the sidecar not naming
// the header of a tools change). Captured headers are rebuilt from the
// sidecars' token-preserving layout, and where they agree with the run's
// header up to its whitespace they take the run's bytes, so that only a
// real difference is one.
func pinnedLog(golden, systemMD, toolsJSON, run []byte) ([]byte, bool) {
	texts := systemSections(systemMD)
	tj := gjson.ParseBytes(toolsJSON)
	lists := []gjson.Result{tj.Get("initial")}
	lists = append(lists, tj.Get("changes").Array()...)
	if !lists[0].Exists() || len(texts) == 0 {
		return nil, false
	}
	runHeaders := headerValues(run)
	var out []byte
	index, change := 0, 0
	var prevTools string
	for len(golden) > 0 {
		line, rest, _ := bytes.Cut(golden, []byte{'\n'})
		golden = rest
		data := gjson.GetBytes(line, "data")
		if !mayBe(line, logformat.RequestHeader) || gjson.GetBytes(line, "type").String() != logformat.RequestHeader {
			out = append(append(out, line...), '\n')
			continue
		}
		index++
		var runSys, runTools gjson.Result
		if index <= len(runHeaders) {
			runSys, runTools = runHeaders[index-1].Get("system"), runHeaders[index-1].Get("tools")
			if index > 1 && runTools.Raw != prevTools && change+1 < len(lists) {
				change++
			}
			prevTools = runTools.Raw
		}
		captured := data.Get("format").Exists()
		text := texts[0].text
		for _, s := range texts {
			if s.header <= index {
				text = s.text
			}
		}
		var sys, tools []byte
		if captured {
			sys = likeRun(compactTokens([]byte(text), true), runSys)
			tools = likeRun(compactTokens([]byte(lists[change].Raw), false), runTools)
		} else {
			sys = canon.AppendString(nil, text)
			// The sidecar's tokens as written: an escape or a number's
			// form edited in it is an encoding drift, which the
			// canonical form would erase. The reference sidecar is the
			// canonical header indented, so untouched it is the
			// header's bytes.
			if !canon.Valid([]byte(lists[change].Raw)) {
				return nil, false
			}
			tools = compactTokens([]byte(lists[change].Raw), false)
		}
		hdr := data.Get("header")
		var splices []splice
		if v := hdr.Get("system"); v.Exists() {
			splices = append(splices, splice{v.Index, v.Index + len(v.Raw), sys})
		}
		if v := hdr.Get("tools"); v.Exists() {
			splices = append(splices, splice{v.Index, v.Index + len(v.Raw), tools})
		}
		if len(splices) == 2 && splices[1].at < splices[0].at {
			splices[0], splices[1] = splices[1], splices[0]
		}
		prev := 0
		for _, sp := range splices {
			if sp.at < prev {
				return nil, false
			}
			out = append(out, line[prev:sp.at]...)
			out = append(out, sp.with...)
			prev = sp.end
		}
		out = append(out, line[prev:]...)
		out = append(out, '\n')
	}
	return out, true
}

// splice replaces line[at:end] with with.
type splice struct {
	at, end int
	with    []byte
}

// section is the system text of the headers from header on.
type section struct {
	header int
	text   string
}

// systemSections splits a NAME.system.md sidecar at its markers.
func systemSections(md []byte) []section {
	sep := []byte("\n\n" + markerPrefix)
	md = bytes.TrimSuffix(md, []byte{'\n'})
	i := bytes.Index(md, sep)
	if i < 0 {
		return []section{{1, unescapeMarkers(string(md))}}
	}
	out := []section{{1, unescapeMarkers(string(md[:i]))}}
	md = md[i+2:]
	for {
		marker, rest, ok := bytes.Cut(md, []byte{'\n'})
		if !ok {
			return out
		}
		header, ok := markerHeader(marker)
		if !ok {
			return out
		}
		rest = bytes.TrimPrefix(rest, []byte{'\n'})
		text := rest
		if j := bytes.Index(rest, sep); j >= 0 {
			text, md = rest[:j], rest[j+2:]
		} else {
			md = nil
		}
		out = append(out, section{header, unescapeMarkers(string(text))})
		if md == nil {
			return out
		}
	}
}

// headerValues returns the data.header of every request/header event of a
// full log, in order.
func headerValues(log []byte) []gjson.Result {
	var out []gjson.Result
	for len(log) > 0 {
		line, rest, _ := bytes.Cut(log, []byte{'\n'})
		log = rest
		if mayBe(line, logformat.RequestHeader) && withinLimits(line) && gjson.GetBytes(line, "type").String() == logformat.RequestHeader {
			out = append(out, gjson.GetBytes(line, "data.header"))
		}
	}
	return out
}

// compactTokens undoes the sidecar layout of a captured header part
// (canon.IndentTokens, and for the system part line breaks in strings
// for the \n escapes): it drops the whitespace between tokens and, when
// lineBreaks is set, writes a line break inside a string as \n again.
func compactTokens(src []byte, lineBreaks bool) []byte {
	out := make([]byte, 0, len(src))
	inStr := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inStr && c == '\\' && i+1 < len(src):
			out = append(out, c, src[i+1])
			i++
		case inStr && c == '\n' && lineBreaks:
			out = append(out, '\\', 'n')
		case c == '"':
			inStr = !inStr
			out = append(out, c)
		case !inStr && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
		default:
			out = append(out, c)
		}
	}
	return out
}

// likeRun returns the golden part want (compact tokens) written with the
// run's bytes as far as the two agree but for whitespace between tokens,
// then with want's own tokens spaced as the run spaces its separators: a
// run that sent its header with spaces (Python's json.dumps) differs from
// its golden header only where a token does.
func likeRun(want []byte, run gjson.Result) []byte {
	if !run.Exists() {
		return want
	}
	raw := run.Raw
	i, j := 0, 0 // in want, in raw
	inStr := false
	for i < len(want) && j < len(raw) {
		c := raw[j]
		if !inStr && (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			j++
			continue
		}
		if want[i] != c {
			break
		}
		switch {
		case inStr && c == '\\' && i+1 < len(want) && j+1 < len(raw):
			if want[i+1] != raw[j+1] {
				return spacedLike(append([]byte(raw[:j]), want[i:]...), j, raw)
			}
			i, j = i+2, j+2
			continue
		case c == '"':
			inStr = !inStr
		}
		i, j = i+1, j+1
	}
	if i == len(want) {
		return []byte(raw[:j])
	}
	return spacedLike(append([]byte(raw[:j]), want[i:]...), j, raw)
}

// spacedLike writes the compact tokens of b from offset from on with a
// space after each comma and colon outside strings where the run writes
// one after its first of them (json.dumps' ", " and ": "), so that the
// golden part's tail differs from the run's only where a token does.
func spacedLike(b []byte, from int, run string) []byte {
	comma, colon := separatorSpaces(run)
	if !comma && !colon {
		return b
	}
	out := make([]byte, 0, len(b)+len(b)/8)
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		out = append(out, c)
		switch {
		case inStr && c == '\\' && i+1 < len(b):
			i++
			out = append(out, b[i])
		case c == '"':
			inStr = !inStr
		case i >= from && !inStr && (c == ',' && comma || c == ':' && colon):
			out = append(out, ' ')
		}
	}
	return out
}

// separatorSpaces reports whether the run's first comma and first colon
// outside strings are followed by a space.
func separatorSpaces(run string) (comma, colon bool) {
	seenComma, seenColon, inStr := false, false, false
	for i := 0; i < len(run) && !(seenComma && seenColon); i++ {
		switch c := run[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case !inStr && c == ',' && !seenComma:
			seenComma, comma = true, i+1 < len(run) && run[i+1] == ' '
		case !inStr && c == ':' && !seenColon:
			seenColon, colon = true, i+1 < len(run) && run[i+1] == ' '
		}
	}
	return comma, colon
}
