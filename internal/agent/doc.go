// Package agent is the reference agent loop. It runs turns and steps against
// an [Adapter], assembles the request header through the system-prompt
// service before every step, and appends every event to a session [Log].
//
// The log is the source of truth: [Rebuild] turns any log prefix into the
// exact bytes of the next request, and the loop builds every request it
// dispatches through the same [Projector], so what the adapter receives and
// what the log says it received cannot disagree.
//
// Event lines are JSON objects {"type":…,"data":{…}} written as JavaScript's
// JSON.stringify would write them. The data members, in their fixed order:
//
//	turn/start         turn
//	user/message       turn, content
//	step/start         turn, step
//	request/header     turn, step, reason, header{config, system, tools}
//	assistant/message  turn, step, text?, toolCalls?[{id, name, arguments}]
//	tool/plan          turn, step, proposed, executed
//	tool/result        turn, step, callId, name, output, error?, replayed?
//	step/end           turn, step
//	turn/end           turn, reason, message?
//	agent/error        turn, message
//
// Members marked ? are left out when empty or false. Turns count from 1 over
// the whole session; steps count from 1 within a turn.
package agent
