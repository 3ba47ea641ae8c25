// Package drift bisects request-header drift between two hosts: it reads
// two session logs, or two JSON Lines files of raw provider request bodies,
// pairs their headers in order and reports the first header that differs,
// the path of the first difference and every kind of difference in it.
//
// # Inputs
//
// A session log (templated or full) contributes one header per
// request/header event: the event's data.header object, compared as
// written. A templated (golden) log holds "<<system>>" and "<<tools>>" in
// place of the system text and tools; where either side does, that member
// is left out of the comparison on both sides, so a full log compares with
// a golden one on what the golden one shows, and [Result].NotCompared
// lists what was left out (so "identical" never hides it). Other events
// are skipped. Inputs that hold no header at all, on either side, are an
// error ([ErrNothingToCompare]): two empty inputs are not identical.
//
// A file of request bodies contributes one header per body. Bodies are read
// one per line, or, when the file's first line opens a JSON value without
// closing it, one per complete (for example pretty-printed) value. The wire
// format is detected per body ([wire.Detect]; see [Format]) and the header
// is the one package wire defines, [wire.Split]'s header document
// {"config":…,"system":…,"tools":…}, exactly the header a captured log
// holds for that body, so a captured log compares with the bodies it
// captured. Each part is the body's own member, verbatim:
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
// drift. A body that wire.Split refuses (a top-level member written twice,
// two system members) is invalid input, where it is. Whether a file is a
// session log is decided by its first record (an object with "type" and
// "data" members); -format forces one reading for every record.
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
// paths keep the nesting). A tool present on one side only is [Added] or
// [Removed]; matched tools in another relative order are a [Reorder];
// matched tools whose JSON values differ, and any difference of system text
// or config, are [Content]; equal JSON values written with other bytes
// (string escapes, object key order, whitespace, number spelling) are
// [Encoding]. A header present on one side only is reported as Added (only
// in B) or Removed (only in A) with the empty path.
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
// The first differing header is priced (SPEC §7, package cost): in the
// render order of the provider serving B's model, the first byte at which
// B's tools, system or conversation differ from A's is the end of the
// prefix that stays cached; a config difference loses everything. B's
// request is the one sent next, so its segments are counted: the
// conversation too, when the input holds it (a request body's, or a
// captured log's capture/request event for the header's request; a
// reference-agent log holds none). The model is config.model (the
// request path's for captured Gemini requests) unless [Options].Model is
// set. A reference-agent log names no wire format: its header is priced
// under the row of its model, and [Result].CacheNote says the provider was
// assumed. A model the rate table does not know, a templated header, or a
// header on one side only are not priced: Result.Cache is nil and
// CacheNote says why ("no rate for model …").
//
// # Streaming
//
// Inputs are read one record at a time and only the current pair of
// records is held, so memory stays bounded by the longest header record,
// whatever the size of the inputs. Records that are byte-identical take a
// fast path and are not parsed. In session logs, events written in the
// canonical layout ({"type":"…","data":{…}}) are classified from their
// first bytes; only request/header events are parsed, and only when they
// differ, and other events longer than the read buffer are dropped as they
// are read instead of being gathered. Only the first differing header is
// walked in detail; later ones are compared as bytes.
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
//     are read (see Streaming) are never held and not limited.
//
// [CheckRecord] and [CheckLines] hold a record to both limits with the
// same errors; the harness calls them on a golden file before parsing
// it, and package stability on every log line, so the limits are the
// same wherever a log line is parsed.
//
// # Known limitations
//
//   - Byte-identical records after the first are not parsed, so invalid
//     JSON written identically on both sides is not reported; other events of a session
//     log in the canonical layout are only checked for their frame (the
//     prefix above and a final "}}").
//   - Headers are paired by index: a header event present on one side only
//     (a resume on another host, say) shifts every later pair.
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
//   - A session-log event in the canonical layout is classified by its
//     first member; a later duplicate "type" member is not seen.
//   - The walk of the first differing header reads each nested value
//     with gjson, so a header nested close to MaxDepth costs time in
//     proportion to its depth times its size (about 0.3 s for a 20 kB
//     header 10,000 deep); memory stays linear.
//   - Line and offset name the record's first line and the byte offset
//     inside the record; for a pretty-printed record the offset still
//     counts from that first line.
package drift
