package drift

import "github.com/headergold/headergold/internal/cost"

// Kind names one way two headers can differ.
type Kind string

// The kinds of difference, in the order Difference.Kinds lists them.
const (
	// Reorder: the same tools, in another order.
	Reorder Kind = "reorder"
	// Added: a tool (or a whole header) present in B only.
	Added Kind = "added"
	// Removed: a tool (or a whole header) present in A only.
	Removed Kind = "removed"
	// Content: a tool's description or schema, the system text or the
	// config changed.
	Content Kind = "content"
	// Encoding: the same JSON value written with other bytes (escaping,
	// key order, whitespace, number spelling).
	Encoding Kind = "encoding"
)

// Result is the outcome of [Compare].
type Result struct {
	// Identical reports whether every pair of requests was sent under the
	// same header (byte-identical after redaction) and both inputs hold
	// the same number of requests.
	Identical bool `json:"identical"`
	// First describes the first pair of requests whose headers differ;
	// nil when there is none (Identical, or only the numbers of requests
	// differ: see CountNote).
	First *Difference `json:"first"`
	// LaterDiffering counts the pairs of requests after First whose
	// headers differ, and, when First is set, the requests present in one
	// input only.
	LaterDiffering int `json:"laterDiffering"`
	// Headers counts the headers read from each input: the request/header
	// events of a session log, the bodies of a file of request bodies.
	Headers Counts `json:"headers"`
	// Requests counts the requests of each input: the steps of a
	// reference-agent log, the captured requests of a captured log (a
	// header event no request follows counts as one), the bodies.
	Requests Counts `json:"requests"`
	// CountNote says that the inputs hold different numbers of requests,
	// for example "A has 5 requests, B has 4; the 4 they share have the
	// same headers" (the second part only when no pair differs); "" when
	// they hold as many. Different numbers of requests are never
	// Identical.
	CountNote string `json:"countNote,omitempty"`
	// NotCompared lists the header members left out of the comparison
	// because a templated log holds a placeholder for them ("<<system>>",
	// "<<tools>>"), so that Identical never hides what was not compared;
	// empty when everything was compared.
	NotCompared []Hidden `json:"notCompared"`
	// Cache is what the first difference costs in prompt caching (SPEC
	// §7), priced on B's request, the one sent after A's: its tokens
	// before the first differing byte in the provider's render order are
	// kept, the rest are lost. It is nil when the inputs are identical or
	// the drift cannot be priced; CacheNote then says why.
	Cache *cost.Cache `json:"cache"`
	// CacheAt is the first difference in render order: the segment and
	// the byte offset in B's bytes of it. It can come later in the
	// document than First.Path (Anthropic renders tools before system).
	CacheAt *cost.Place `json:"cacheAt,omitempty"`
	// CacheNote says why Cache is nil, or what its figures assume (a
	// provider taken from the model, a conversation not counted).
	CacheNote string `json:"cacheNote,omitempty"`
	// UnusedRedactions lists the redactions that changed nothing in the
	// records that were parsed (byte-identical records after the first
	// are not, see the package documentation): a mistyped path shows
	// here instead of passing silently.
	UnusedRedactions []string `json:"unusedRedactions,omitempty"`

	cacheSizes map[string]int // B's segment sizes, for CacheLines
	logs       bool           // either input is a session log, whose headers are not its requests
	compared   int            // pairs of requests compared (not skipped as under unchanged headers)
}

// Hidden is a header member that a templated log holds as a placeholder,
// and so was compared on neither side.
type Hidden struct {
	// Member is "system" or "tools".
	Member string `json:"member"`
	// In lists the inputs holding the placeholder: "A", "B" or both.
	In []string `json:"in"`
}

// Counts holds one number per input.
type Counts struct {
	A int `json:"a"`
	B int `json:"b"`
}

// Difference describes the first pair of requests whose headers differ.
type Difference struct {
	// Index is the 1-based position of A's header among A's header
	// events (a session log) or request bodies: the header A's request
	// was sent under. B's is Side.Header of B.
	Index int `json:"index"`
	// Request is the 1-based position of the pair among the requests of
	// each input (for request bodies, Index).
	Request int `json:"request"`
	// Path is the path of the first difference in document order, relative
	// to the header (see the package documentation); "" when the header
	// exists on one side only or the difference is the header's own layout.
	Path string `json:"path"`
	// Kinds lists every kind of difference in this header, in the order
	// reorder, added, removed, content, encoding.
	Kinds []Kind `json:"kinds"`
	// Cause names the likely cause, when one is clear.
	Cause string `json:"cause,omitempty"`
	// A and B locate the header and the first difference in each input.
	A Side `json:"a"`
	B Side `json:"b"`
	// Tools gives both tool-name sequences when the tools differ in
	// order or membership.
	Tools *ToolLists `json:"tools,omitempty"`
	// Content details the first content difference.
	Content *ContentDetail `json:"content,omitempty"`
	// Encoding details the first encoding difference.
	Encoding *EncodingDetail `json:"encoding,omitempty"`
	// Diffs lists the differences in document order, at most MaxDiffs.
	Diffs []Diff `json:"diffs"`
	// MoreDiffs counts the differences left out of Diffs.
	MoreDiffs int `json:"moreDiffs,omitempty"`

	// configContent is set when the config differs in value, not only in
	// encoding: only that is priced as invalidating the whole prefix.
	configContent bool
	// hidden names the members a template left out, for a change only
	// one log records there: the difference is somewhere in them.
	hidden []string
	// changed is the side ("A" or "B") whose log records that change.
	changed string
}

// MaxDiffs bounds Difference.Diffs.
const MaxDiffs = 50

// Side locates the request of one input and the header it was sent
// under.
type Side struct {
	// File names the input.
	File string `json:"file"`
	// Line is the 1-based line where the header's record starts (the
	// request/header event in force, or the body); Offset and WirePath
	// are in that record.
	Line int `json:"line"`
	// Header is the 1-based index of that header among this input's
	// header events (or bodies); A's is Difference.Index.
	Header int `json:"header"`
	// RequestLine is the 1-based line of the request's own record: the
	// step/start of a reference-agent log's step, a captured log's
	// capture/request event, the body; for a header event no request
	// follows, the header event's.
	RequestLine int `json:"requestLine"`
	// Format is the record's format (log or a wire format).
	Format Format `json:"format,omitempty"`
	// Turn and Step are the request's, in a reference-agent log.
	Turn int `json:"turn,omitempty"`
	Step int `json:"step,omitempty"`
	// Request is the request's number in a captured log (its
	// capture/request event's), which names requests instead of turns
	// and steps; Wire is the wire format its header event names.
	Request int    `json:"request,omitempty"`
	Wire    string `json:"wire,omitempty"`
	// Reason is the reason of the header event in force; HeaderTurn and
	// HeaderStep (a reference-agent log) or HeaderRequest (a captured
	// log) say where it was logged, which can be earlier than the
	// request.
	Reason        string `json:"reason,omitempty"`
	HeaderTurn    int    `json:"headerTurn,omitempty"`
	HeaderStep    int    `json:"headerStep,omitempty"`
	HeaderRequest int    `json:"headerRequest,omitempty"`
	// WirePath is the path of the first difference inside the record (of
	// the place it would be, when this side has nothing there).
	WirePath string `json:"wirePath,omitempty"`
	// Offset is the byte offset of the first difference inside the record
	// (after redaction); -1 when this side has nothing there.
	Offset int `json:"offset"`
}

// Diff is one difference at one path.
type Diff struct {
	Path string `json:"path"`
	Kind Kind   `json:"kind"`
	// Tool names the tool the difference is in, if any.
	Tool string `json:"tool,omitempty"`
	// Note refines the kind: "escaping", "key order", "whitespace",
	// "number spelling", "duplicate key", "key spelling" (Gemini's
	// functionDeclarations as function_declarations) for encoding; "added member",
	// "removed member", "added element", "removed element", "type",
	// "grouping" (Gemini tools entries) for content.
	Note string `json:"note,omitempty"`
	// OffsetA and OffsetB are byte offsets in each record, -1 if absent.
	OffsetA int `json:"offsetA"`
	OffsetB int `json:"offsetB"`
}

// ToolLists gives the tool names of both headers, in order, with the tools
// that moved (not part of a longest common order), were added or removed.
type ToolLists struct {
	A       []string `json:"a"`
	B       []string `json:"b"`
	Moved   []string `json:"moved,omitempty"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	// MovedA and MovedB are the 0-based positions of the moved tools in
	// A and in B, RemovedAt those of the removed ones in A, AddedAt those
	// of the added ones in B: where tools share a name, they say which
	// one it is.
	MovedA    []int `json:"movedA,omitempty"`
	MovedB    []int `json:"movedB,omitempty"`
	RemovedAt []int `json:"removedAt,omitempty"`
	AddedAt   []int `json:"addedAt,omitempty"`
}

// ContentDetail shows the first content difference.
type ContentDetail struct {
	Path string `json:"path"`
	// Tool and Field name the tool and the path inside it, when the
	// difference is in a tool.
	Tool  string `json:"tool,omitempty"`
	Field string `json:"field,omitempty"`
	// At is the offset in characters of the first differing character
	// when both values are strings, else -1.
	At int `json:"at"`
	// A and B are windows around the first differing character (strings)
	// or the values themselves, shortened; "" when absent on that side.
	A string `json:"a"`
	B string `json:"b"`
	// Cut is the number of characters of the window before the
	// difference, for aligning a marker.
	Cut int `json:"cut"`
	// Strings reports whether A and B are text windows (else JSON).
	Strings bool `json:"strings"`
}

// EncodingDetail shows the first encoding difference.
type EncodingDetail struct {
	Path string `json:"path"`
	// Note is "escaping", "key order", "whitespace", "number spelling",
	// "duplicate key" or "key spelling".
	Note string `json:"note"`
	// OffsetA and OffsetB are the byte offsets of the first differing
	// byte in each record.
	OffsetA int `json:"offsetA"`
	OffsetB int `json:"offsetB"`
	// A and B are the differing bytes (an escape sequence, a key, a
	// number or a short run of bytes).
	A string `json:"a"`
	B string `json:"b"`
}
