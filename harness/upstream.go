package harness

import (
	"fmt"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/capture"
	"github.com/headergold/headergold/internal/wire"
)

// withReplies returns the fixture file with its "replies" member set to
// replies recorded from a real provider, every other byte as the user
// wrote it. Each reply is one line: its tokens as received, the recorded
// response a JSON string. The result must load as the same scenario.
func withReplies(f *Fixture, replies []wire.Reply) ([]byte, error) {
	var list []byte
	list = append(list, "[\n"...)
	for i, r := range replies {
		list = append(list, "    "...)
		list = appendRecordedReply(list, r)
		if i < len(replies)-1 {
			list = append(list, ',')
		}
		list = append(list, '\n')
	}
	list = append(list, "  ]"...)

	raw := f.raw
	at, end := -1, -1
	last := -1
	canon.Members(raw, 0, func(key []byte, s, e int) bool {
		if keyIs(key, "replies") {
			at, end = s, e
		}
		last = e
		return true
	})
	var out []byte
	switch {
	case at >= 0:
		out = append(append(append(out, raw[:at]...), list...), raw[end:]...)
	case last >= 0:
		out = append(append(append(out, raw[:last]...), ",\n  \"replies\": "...), list...)
		out = append(out, raw[last:]...)
	default:
		return nil, fmt.Errorf("%s: cannot place the recorded replies in the fixture", f.File)
	}
	if _, err := decodeFixture(f.File, out); err != nil {
		return nil, fmt.Errorf("the fixture with its recorded replies does not load: %w", err)
	}
	return out, nil
}

// appendRecordedReply writes one recorded reply in the fixture's terms.
func appendRecordedReply(dst []byte, r wire.Reply) []byte {
	reply := capture.AppendReply(nil, wire.Reply{Text: r.Text, ToolCalls: r.ToolCalls})
	if r.Recorded == nil {
		return append(dst, reply...)
	}
	dst = append(dst, reply[:len(reply)-1]...)
	if len(reply) > 2 {
		dst = append(dst, ',')
	}
	dst = append(dst, `"recorded":{"status":`...)
	dst = canon.AppendInt(dst, int64(r.Recorded.Status))
	dst = append(dst, `,"contentType":`...)
	dst = canon.AppendString(dst, r.Recorded.ContentType)
	dst = append(dst, `,"body":`...)
	dst = canon.AppendString(dst, r.Recorded.Body)
	return append(dst, "}}"...)
}
