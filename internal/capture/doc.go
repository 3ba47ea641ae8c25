// Package capture runs a fake provider for a captured scenario and turns
// what it captured into a session log.
//
// # The fake provider
//
// [Start] serves every endpoint of package wire on 127.0.0.1 at a free
// port. Each generation request takes the next scripted reply, written in
// the request's wire format (JSON, or a stream when asked). A request past
// the script, an unknown path, a body that is not a JSON object, or a
// request in another format than the scenario's first gets a
// provider-style error response and is reported by [Server.Failures]. HTTP
// headers (API keys among them) are never kept. Anthropic's count_tokens
// is answered with an estimate and is not a step: it takes no reply and is
// not logged.
//
// # The captured log
//
// [BuildLog] writes, for the n-th generation request (counted from 1):
//
//	{"type":"request/header","data":{"request":n,"reason":R,"format":F,"header":H}}
//	{"type":"capture/request","data":{"request":n,"format":F,"path":P,"body":B[,"prefix":S][,"suffix":S][,"spaces":[[AT,S],…]][,"headerSpaces":[[AT,S],…]]}}
//	{"type":"capture/reply","data":{"request":n,"reply":{"text":…,"toolCalls":[{"id","name","arguments"}]}}}
//
// The request/header event comes only when the header H (wire's
// {"config","system","tools"}, each part verbatim) or the format differs
// from the one in force: reason "initial" for the first, "change" after.
// B is the rest of the body ([wire.Parts].Rest: the header parts replaced
// by "<<config>>", "<<system>>" and "<<tools>>"); prefix and suffix are
// the whitespace around the body. For a pretty-printed body, spaces is
// the whitespace between the tokens of B, at byte offsets of B, and
// headerSpaces the whitespace inside the header's values, at byte offsets
// of H as [wire.Parts.Header] writes it: a templated log leaves
// headerSpaces out, so that a golden log does not move with the length of
// a tool description. Members appear in the order shown.
//
// Every body is rebuilt, byte for byte, from the log prefix before its
// reply: the header in force, then the capture/request event ([Rebuild]).
// Redaction rules are applied to each body before any of this.
package capture
