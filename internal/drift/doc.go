// Package drift bisects request-header drift between two hosts: it reads
// two session logs, or two JSON Lines files of raw provider request bodies,
// pairs their requests in order and reports the first pair sent under
// headers that differ, the path of the first difference and every kind of
// difference in it.
//
// # Inputs
//
// What is compared is the header each request was sent under. Requests
// are paired by position, request 1 of A with request 1 of B, and so on;
// the first pair whose headers differ is reported ([Result].First), with
// [Difference].Request its number, [Difference].Index the index of A's
// header among A's header events (B's is [Side].Header), and each side's
// request and header located (turn and step or captured request, line).
// A pair is compared only when the header of either side changed since
// the last pair compared, so the work grows with the header events, not
// with the steps. Inputs with different numbers of requests are never
// identical: when every pair they share has the same headers,
// [Result].First is nil and [Result].CountNote says so ("A has 5
// requests, B has 4; the 4 they share have the same headers").
//
// A session log (templated or full) holds its headers in request/header
// events, data.header compared as written, and its requests are placed
// around them:
//
//   - a reference-agent log (SPEC §2): each step/start opens a request,
//     dispatched under the header in force (the last request/header event
//     read) at the step's first event that is not a request/header (its
//     assistant/message, or its step/end when the adapter failed), or at
//     the next step/start or the end of input (a truncated log);
//   - a captured log (package capture): each capture/request event is a
//     request, dispatched under the header in force;
//   - a request/header event that no request is dispatched under before
//     the next header event or the end of input (a log of header events
//     only) stands for one request of its own.
//
// So a header change logged at step 2 on one host and at step 3 on the
// other is found at request 2, and a header event on one side only that
// changes nothing (a resume on another host, say) is no difference. A
// request dispatched with no header event before it is invalid input.
//
// A templated (golden) log holds "<<system>>" and "<<tools>>" in place of
// the system text and tools; where either side does, that member is left
// out of the comparison on both sides, so a full log compares with a
// golden one on what the golden one shows, and [Result].NotCompared lists
// what was left out (so "identical" never hides it). Inputs that hold no
// request at all, on either side, are an error ([ErrNothingToCompare]):
// two empty inputs are not identical; and so is one input with no line
// but blank ones ([ErrEmptyInput]), more likely a file cut short than a
// log of no request.
//
// A file of request bodies holds one request per body, which is its own
// header. Bodies are read one per line, or, when the file's first line
// opens a JSON value without closing it, one per complete (for example
// pretty-printed) value. The wire format is detected per body (see
// Formats below) and the header is the one package wire defines,
// [wire.Split]'s header document {"config":…,"system":…,"tools":…},
// exactly the header a captured log holds for that body, so a captured
// log compares with the bodies it captured. Each part is the body's own
// member, verbatim:
//
//	config  every top-level member except those below, in body order
//	        (model, max_tokens, temperature, tool_choice, generationConfig, …)
//	system  Anthropic system (a string or an array of blocks, as sent);
//	        OpenAI Chat: the array of the leading system and developer
//	        messages; OpenAI Responses instructions; Gemini
//	        systemInstruction (or system_instruction)
//	tools   the body's tools, in every format; for Gemini with its tools
//	        entries and their functionDeclarations nested as sent
//
// Left out: the conversation (messages after the leading system ones,
// input, contents, previous_response_id, conversation) and the transport
// flags stream and stream_options. Messages therefore never count as
// drift. Whether a file is a session log is decided by its first record
// (an object with "type" and "data" members); -format forces one reading
// for every record.
//
// Every record of both inputs is validated as what it must be, whether
// it is compared or not, the records after the last pair included (one
// exception below: a session-log event byte-identical to the other
// input's beside it): in a
// session log, a JSON object {"type": string, "data": object, …}; in a
// file of bodies, a JSON object of a known wire format that wire.Split
// accepts (no top-level member twice, one system member) and whose shape
// the format's provider takes ([wire.CheckShape]: its conversation member,
// and members such as tools, system and messages of the JSON types the
// provider takes; null for an optional member, Gemini's single object for
// a repeated field). The members a provider requires besides (model,
// max_tokens) are left to the fake provider, which refuses a request
// without them: they are not part of what is compared. Blank lines
// are skipped. Anything else is an *[InputError] at its file, line and
// column (replay diff exits 125).
//
// # Formats
//
// The wire format of a body is detected per body by [wire.Detect]. Its
// fallback, OpenAI Chat for a body with messages and no mark of
// Anthropic, is not taken as sure: an Anthropic body without a system
// prompt whose tools are server tools has no such mark. A body read as
// OpenAI Chat is sure only with a mark of Chat Completions (a system or
// developer message, a tool with a function or custom member, a member
// only Chat takes, such as max_completion_tokens or response_format); one
// with a mark of Anthropic instead (a tool with a top-level name,
// stop_sequences, top_k, thinking) is Anthropic. A body that has neither
// is read in the format the earlier bodies of its input were read in,
// else in that of the other input's paired record (its body's, or the
// wire format a captured log's header in force names), else as OpenAI
// Chat. So two inputs whose bodies are all ambiguous read alike, and an
// ambiguous body beside a sure one is read in the sure one's format
// instead of being reported as in "different formats". A body's shape
// ([wire.CheckShape]) is judged in the format it is read in: the
// validating scan notes what each format says of an ambiguous body, and
// the format read in, once the comparison decides it, picks the answer.
// With -format (Options.Format), every body is read in that format,
// except one that detection surely reads as another format and that
// holds a certain mark of it, which is refused at the mark: a member or
// tool of Gemini's (contents, functionDeclarations, …), of Responses' in a
// body without messages (input, instructions, …), of Anthropic's in one
// with messages (system, anthropic_version, a tool with input_schema), or
// of OpenAI Chat's (a leading system or developer message, a tool with a
// function or custom member). Read in the format given, such a body
// could hide a difference: OpenAI Chat's system messages read as
// Anthropic are conversation. The weaker marks detection reads (top_k, a
// member only Chat Completions takes, a system message further in, which
// Anthropic bodies carry too) are not refused: -format is what reads such
// a body in the format it is in.
//
// # Paths
//
// A path names a place in the header in gjson's dotted syntax: members by
// name, array elements by 0-based index, special characters escaped as
// gjson.Escape does. For a session log the header is data.header itself,
// and for a request body the document above, so paths look like
// config.model, system (an Anthropic string or Responses instructions),
// system.0.text (an Anthropic block), system.0.content (OpenAI Chat),
// system.parts.0.text (Gemini), tools.3.description, tools.2.input_schema
// (Anthropic), tools.1.function.description (OpenAI Chat) or
// tools.0.functionDeclarations.1.description (Gemini). The path of the same
// place in the record itself is reported beside it as the wire path, for
// example data.header.tools.3.description, instructions or
// messages.0.content.
//
// The first difference is the first in document order of the header:
// config, then system, then tools; within tools the first position whose
// tool differs. Where the two sides order an object's members differently,
// of the next member of each side the one at the lower position comes
// first (the lower key on a tie), so comparing B with A reports the same
// first difference as A with B, its added and removed swapped.
//
// Objects are read as JSON.parse reads them: a key written more than once
// counts with its last value, at the position of its first occurrence.
// The occurrences it drops are reported as an [Encoding] difference with
// the note "duplicate key" at the member's path (unless both sides drop
// the same bytes), and a different last value as [Content] besides.
//
// # Kinds
//
// Tools are matched by name (the name member, function.name, or the type
// of a built-in tool; for Gemini, across the function declarations of all
// tools entries, flattened, and the built-in tools beside them, while
// paths keep the nesting). Tools that share a name are matched by value
// first (equal canonical bytes, key order ignored), then the rest in
// order, so two same-named tools that swap places are a [Reorder] and
// removing one of them removes that one ([ToolLists] gives positions as
// well as names). A tool present on one side only is [Added] or
// [Removed]; matched tools in another relative order are a [Reorder];
// matched tools whose JSON values differ, and any difference of system text
// or config, are [Content]; equal JSON values written with other bytes
// (string escapes, object key order, whitespace, number spelling, and
// Gemini's functionDeclarations spelled function_declarations, one
// protobuf field) are [Encoding]. Numbers are compared as JSON.parse reads them: 1.0 and 1
// are one value, and so are two numbers too large for a double of the
// same sign (Infinity), while 1e400 and -1e400 are not.
//
// # Redaction
//
// Redactions are the rules of package redact, the ones a captured
// scenario's redact holds ([ParseRedaction] reads them from -redact): a
// path rule replaces the value at a header path with a string, in a
// request body as a captured scenario does, and in a session-log event at
// data.header; a regular expression rewrites its matches in the decoded
// text of every JSON string value (not keys) of both records. Both are
// applied before the headers are compared; text outside the matches keeps
// its bytes, so escaping drift is still seen. Byte offsets then refer to
// the redacted record. A rule that changed nothing in the records that
// were parsed is listed in [Result].UnusedRedactions.
//
// # Cost
//
// The first differing pair is priced (SPEC §7, package cost): in the
// render order of the provider serving B's model, the first byte at which
// B's tools, system or conversation differ from A's is the end of the
// prefix that stays cached; a config of another value loses everything.
// A config that differs only in encoding (key order, number spelling,
// escapes) is read alike by a provider, which parses the body: it loses
// nothing by itself, and the note says so. B's request is the one sent
// next, so its segments are counted: the conversation too, when the input
// holds it (a request body's, or a captured request's capture/request
// event; a reference-agent log holds none). The model is config.model (the
// request path's for captured Gemini requests) unless [Options].Model is
// set. A reference-agent log names no wire format: its header is priced
// under the row of its model, and [Result].CacheNote says the provider was
// assumed. A model the rate table does not know is not priced, nor is a
// templated header, except where its left-out members cannot matter: B
// full and a config of another value (the whole prefix is lost, counted
// from B), or a header change B records and a templated A does not (A's
// header is taken to be B's before the change, which it matches in all A
// shows, and the note says so). Otherwise Result.Cache is nil and
// CacheNote says why ("no rate for model …"). Requests on one side only are counted
// ([Result].CountNote), not priced.
//
// # Streaming
//
// Inputs are read one record at a time; what is held is the current
// record of each input and, of a session log, a copy of the header event
// in force, so memory stays bounded by the longest record held, whatever
// the size of the inputs. While neither input has a request ready, both
// are read a record at a time side by side, and a record byte-identical
// to the one the other input read last is validated once, not twice; a
// session-log event in the canonical layout is first only framed (its
// type and data read from its first bytes), and validated once it is not
// byte-identical to the other input's record beside it, so that two
// copies of a large log are compared at the cost of reading them, and an
// invalid event written byte for byte on both sides is no drift.
// Headers that are byte-identical are not parsed (the first pair's
// excepted, which says what a templated log leaves out); a header event
// is parsed once, however many pairs it is compared in. In session logs,
// events other than request/header and capture/request that are longer
// than the read buffer and written in the canonical layout
// ({"type":"…","data":{…}}) are classified from their first bytes and
// validated chunk by chunk as they are read, instead of being gathered;
// capture/request events are gathered until the first difference is
// found (its request's conversation is priced), dropped after. Only the
// first differing pair is walked in detail; later ones are compared as
// bytes.
//
// # Limits
//
// Two limits make hostile input fail fast instead of exhausting memory or
// the stack; a record past either is an *[InputError] naming the file,
// the line (and column) and what was passed:
//
//   - [MaxDepth] (10,000, as internal/canon): no record may nest objects
//     and arrays deeper. The depth of every record that is parsed is
//     measured first, by one iterative scan, in time linear in the record;
//     nothing recursive reads a deeper one.
//   - [MaxRecordSize] (256 MiB): no record held in memory (a line, or a
//     value spread over lines) may be longer. It is refused as soon as it
//     is seen to be longer, before the rest is read. [Options].MaxRecordSize
//     lowers the limit. Events of a session log that are dropped as they
//     are read (see Streaming) are never held and not limited (but
//     validated, nested at most MaxDepth deep); capture/request events
//     are held, and limited, until the first difference is found.
//
// [CheckRecord] and [CheckLines] hold a record to both limits with the
// same errors; the harness calls them on a golden file before parsing
// it, and package stability on every log line, so the limits are the
// same wherever a log line is parsed.
//
// # Known limitations
//
//   - Requests are paired by position: a request present on one side only
//     (a retried step, an extra turn) pairs every later request of that
//     side with the next one of the other, so what follows it is compared
//     one request off; CountNote and LaterDiffering show it.
//   - A long event dropped as it is read (see Streaming) is classified by
//     its canonical first bytes: a later duplicate "type" or "data"
//     member is not seen (it is still validated as JSON).
//   - Validation is canon.ScanObject's: JSON syntax, escapes and control
//     characters, not the UTF-8 of string text.
//   - A request/header event logged after a step's assistant/message (the
//     reference agent logs none there) is in force from the next request.
//   - Of a request body, only the parts listed above are compared: the
//     order and spacing of its top-level members outside config are not.
//     A pretty-printed body is compared without the whitespace between
//     its tokens, which wire.Split drops (a one-line body's spacing is
//     compared as sent).
//   - The same Gemini tools grouped into tools entries another way are a
//     [Content] difference ("grouping") at the first entry that differs,
//     but only when the tools match in order; together with added,
//     removed or reordered tools, only those are reported, and where the
//     two sides place a matched tool at other paths, the difference is
//     reported at the earlier of the two, the wire path of each side
//     following it.
//   - An input whose first line opens a JSON value ("{", "[", or ending in
//     "," or ":") is read as pretty-printed values; if such a value never
//     closes, the rest of the input is gathered as one record.
//   - A whitespace difference is reported once for each object or array
//     whose own layout (the bytes between its members) differs, at the
//     first such place in it; a key spelled with other escapes is reported
//     as escaping at the member's path.
//   - The walk of the first differing header reads each nested value
//     with gjson, so a header nested close to MaxDepth costs time in
//     proportion to its depth times its size (about 0.3 s for a 20 kB
//     header 10,000 deep); memory stays linear.
//   - Line and offset name the record's first line and the byte offset
//     inside the record; for a pretty-printed record the offset still
//     counts from that first line.
package drift
