package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// The token counts every rendered reply reports. They are small and fixed:
// an agent may log or sum them, and any value that varied would make its
// later requests vary too.
const (
	usageInput  = 10
	usageOutput = 5
)

// Ask is what a generation request asks of its response beyond its
// endpoint, read from its body.
type Ask struct {
	// Stream asks for a stream ("stream": true); Gemini's
	// streamGenerateContent streams whatever the body says.
	Stream bool
	// Model is echoed where the format has one.
	Model string
	// Usage asks an OpenAI Chat stream for its usage chunk
	// (stream_options.include_usage).
	Usage bool
}

// AskOf is what a request to endpoint e, split into p, asks of its
// response.
func AskOf(e Endpoint, p *Parts) Ask {
	// Gemini streams by its endpoint alone: the API has no stream
	// member (and refuses one), so a body's is no request to stream.
	a := Ask{Stream: e.Stream || p.Stream && e.Format != Gemini, Model: e.Model, Usage: p.Usage}
	if a.Model == "" {
		a.Model = gjson.GetBytes(p.Config, "model").String()
	}
	return a
}

// WriteResponse writes reply r, the answer to generation request number n
// (1-based), as endpoint e's response: JSON, or a stream when a asks for
// one (server-sent events; for a Gemini endpoint asked without alt=sse,
// the JSON array the API streams then). The model of a is echoed where
// the format has one.
//
// Every id is derived from n and every timestamp is 0, because
// agents echo them back in later requests, which must be byte-identical
// from run to run. A tool call's id and argument bytes are sent as
// scripted (an empty id gets one derived from n and the call's position);
// the arguments must be JSON, and an object for Anthropic and Gemini,
// whose wire formats carry them as an object. A reply that breaks these
// rules is refused before anything is written, so the caller can still
// answer with [WriteError].
func WriteResponse(w http.ResponseWriter, e Endpoint, a Ask, n int, r Reply) error {
	if e.CountTokens {
		return errors.New("wire: count_tokens is answered with WriteCountTokens, not a reply")
	}
	if err := checkReply(e.Format, r); err != nil {
		return err
	}
	rd := renderer{model: a.Model, n: n, r: r, usage: a.Usage}
	if !a.Stream && !e.Stream {
		var body []byte
		switch e.Format {
		case Anthropic:
			body = rd.anthropicMessage()
		case OpenAIChat:
			body = rd.chatCompletion()
		case OpenAIResponses:
			body = appendJSON(nil, rd.responseObj("completed", true))
		case Gemini:
			body = appendJSON(nil, rd.geminiObj(rd.r.Text, rd.r.ToolCalls, true, false))
		}
		return writeJSON(w, http.StatusOK, body)
	}
	if e.Array {
		return rd.geminiArray(newArrayWriter(w))
	}
	s := newEventWriter(w, e.Format)
	switch e.Format {
	case Anthropic:
		rd.anthropicStream(s)
	case OpenAIChat:
		rd.chatStream(s)
	case OpenAIResponses:
		rd.responsesStream(s)
	case Gemini:
		rd.geminiStream(s)
	}
	return s.err
}

// checkReply refuses a reply that cannot be written as format f.
func checkReply(f Format, r Reply) error {
	switch f {
	case Anthropic, OpenAIChat, OpenAIResponses, Gemini:
	default:
		return fmt.Errorf("wire: cannot write a reply as format %q", f)
	}
	for i, c := range r.ToolCalls {
		args := c.Args()
		if !json.Valid(args) {
			return fmt.Errorf("wire: tool call %d (%s %q): the arguments are not valid JSON: %.80s", i+1, c.Name, c.ID, args)
		}
		if (f == Anthropic || f == Gemini) && bytes.TrimLeft(args, " \t\r\n")[0] != '{' {
			return fmt.Errorf("wire: tool call %d (%s %q): %s carries arguments as an object, these are %.80s", i+1, c.Name, c.ID, f, args)
		}
	}
	return nil
}

// WriteError writes a provider-style error response of format f: the JSON
// error shape that format's SDKs parse, so that an agent reports msg as
// the provider's own error. A format other than the four gets the OpenAI
// shape, the one most clients understand.
func WriteError(w http.ResponseWriter, f Format, status int, msg string) {
	var body []byte
	switch f {
	case Anthropic:
		body = appendJSON(nil, obj{
			{"type", "error"},
			{"error", obj{{"type", anthropicErrorType(status)}, {"message", msg}}},
		})
	case Gemini:
		body = appendJSON(nil, obj{
			{"error", obj{{"code", status}, {"message", msg}, {"status", geminiStatus(status)}}},
		})
	default:
		body = appendJSON(nil, obj{
			{"error", obj{{"message", msg}, {"type", openAIErrorType(status)}, {"param", nil}, {"code", nil}}},
		})
	}
	// The client may be gone already; the scenario fails on its own
	// account, so a write error here has nobody to go to.
	_ = writeJSON(w, status, body)
}

// WriteCountTokens answers Anthropic's count_tokens with an estimate of
// the body's input tokens, {"input_tokens":N}: a quarter of its bytes, at
// least 1. No offline tokenizer exists for Claude, and an estimate that
// depends on the body alone keeps the answer deterministic.
func WriteCountTokens(w http.ResponseWriter, body []byte) {
	_ = writeJSON(w, http.StatusOK, appendJSON(nil, obj{{"input_tokens", max(1, len(body)/4)}}))
}

// anthropicErrorType is the Anthropic error type of an HTTP status.
func anthropicErrorType(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

// openAIErrorType is the OpenAI error type of an HTTP status.
func openAIErrorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// geminiStatus is the Google RPC status name of an HTTP status.
func geminiStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusConflict:
		return "ALREADY_EXISTS"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusNotImplemented:
		return "UNIMPLEMENTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	}
	if status >= 500 {
		return "INTERNAL"
	}
	return "FAILED_PRECONDITION"
}

// writeJSON writes a complete JSON response.
func writeJSON(w http.ResponseWriter, status int, body []byte) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if _, err := w.Write(body); err != nil {
		return fmt.Errorf("wire: writing the response: %w", err)
	}
	return nil
}

// renderer writes one reply in the shapes of every format.
type renderer struct {
	model string
	n     int
	r     Reply
	usage bool // an OpenAI Chat stream's usage chunk is asked for
}

// id is an id derived from the request number: prefix and n, as in msg_0001.
func (rd *renderer) id(prefix string) string { return fmt.Sprintf("%s%04d", prefix, rd.n) }

// callID is tool call i's id: the scripted one, else one derived from n.
func (rd *renderer) callID(i int, prefix string) string {
	if id := rd.r.ToolCalls[i].ID; id != "" {
		return id
	}
	return fmt.Sprintf("%s%04d_%d", prefix, rd.n, i+1)
}

// ---- Anthropic Messages

// anthropicStop is the stop_reason of the reply.
func (rd *renderer) anthropicStop() string {
	if len(rd.r.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// anthropicMessage is the Messages response.
func (rd *renderer) anthropicMessage() []byte {
	content := []any{}
	if rd.r.Text != "" {
		content = append(content, obj{{"type", "text"}, {"text", rd.r.Text}})
	}
	for i, c := range rd.r.ToolCalls {
		content = append(content, obj{
			{"type", "tool_use"}, {"id", rd.callID(i, "toolu_")}, {"name", c.Name}, {"input", raw(c.Args())},
		})
	}
	return appendJSON(nil, rd.anthropicHead(content, rd.anthropicStop(), usageOutput))
}

// anthropicHead is the message object, complete or as message_start has it.
func (rd *renderer) anthropicHead(content []any, stop any, output int) obj {
	return obj{
		{"id", rd.id("msg_")},
		{"type", "message"},
		{"role", "assistant"},
		{"model", rd.model},
		{"content", content},
		{"stop_reason", stop},
		{"stop_sequence", nil},
		{"usage", obj{
			{"input_tokens", usageInput},
			{"cache_creation_input_tokens", 0},
			{"cache_read_input_tokens", 0},
			{"output_tokens", output},
		}},
	}
}

// anthropicStream writes the Messages event stream. The SDKs take an
// event's type from its event: line, so each has one. Each block's whole
// text or input goes in one delta: splitting it would only add events,
// and the input then arrives as the very bytes scripted.
func (rd *renderer) anthropicStream(s *eventWriter) {
	s.event("message_start", obj{{"type", "message_start"}, {"message", rd.anthropicHead([]any{}, nil, 1)}})
	// The API sends a ping after message_start; clients must skip it, so
	// the fake sends one too.
	s.event("ping", obj{{"type", "ping"}})
	block := 0
	if rd.r.Text != "" {
		s.event("content_block_start", obj{{"type", "content_block_start"}, {"index", block},
			{"content_block", obj{{"type", "text"}, {"text", ""}}}})
		s.event("content_block_delta", obj{{"type", "content_block_delta"}, {"index", block},
			{"delta", obj{{"type", "text_delta"}, {"text", rd.r.Text}}}})
		s.event("content_block_stop", obj{{"type", "content_block_stop"}, {"index", block}})
		block++
	}
	for i, c := range rd.r.ToolCalls {
		s.event("content_block_start", obj{{"type", "content_block_start"}, {"index", block},
			{"content_block", obj{{"type", "tool_use"}, {"id", rd.callID(i, "toolu_")}, {"name", c.Name}, {"input", obj{}}}}})
		s.event("content_block_delta", obj{{"type", "content_block_delta"}, {"index", block},
			{"delta", obj{{"type", "input_json_delta"}, {"partial_json", string(c.Args())}}}})
		s.event("content_block_stop", obj{{"type", "content_block_stop"}, {"index", block}})
		block++
	}
	s.event("message_delta", obj{{"type", "message_delta"},
		{"delta", obj{{"stop_reason", rd.anthropicStop()}, {"stop_sequence", nil}}},
		{"usage", obj{{"output_tokens", usageOutput}}}})
	s.event("message_stop", obj{{"type", "message_stop"}})
}

// ---- OpenAI Chat Completions

// chatFinish is the finish_reason of the reply.
func (rd *renderer) chatFinish() string {
	if len(rd.r.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// chatUsage is the usage object of a chat completion.
func chatUsage() obj {
	return obj{{"prompt_tokens", usageInput}, {"completion_tokens", usageOutput}, {"total_tokens", usageInput + usageOutput}}
}

// chatCompletion is the chat.completion response.
func (rd *renderer) chatCompletion() []byte {
	// The API sends content null beside tool calls and a string otherwise.
	var content any = rd.r.Text
	if rd.r.Text == "" && len(rd.r.ToolCalls) > 0 {
		content = nil
	}
	msg := obj{{"role", "assistant"}, {"content", content}, {"refusal", nil}}
	if len(rd.r.ToolCalls) > 0 {
		calls := make([]any, len(rd.r.ToolCalls))
		for i, c := range rd.r.ToolCalls {
			calls[i] = obj{{"id", rd.callID(i, "call_")}, {"type", "function"},
				{"function", obj{{"name", c.Name}, {"arguments", string(c.Args())}}}}
		}
		msg = append(msg, member{"tool_calls", calls})
	}
	return appendJSON(nil, obj{
		{"id", rd.id("chatcmpl-")},
		{"object", "chat.completion"},
		{"created", 0},
		{"model", rd.model},
		{"choices", []any{obj{{"index", 0}, {"message", msg}, {"logprobs", nil}, {"finish_reason", rd.chatFinish()}}}},
		{"usage", chatUsage()},
	})
}

// chatStream writes the chat.completion.chunk stream: the role, the text,
// each tool call's head (index, id, name) and then its arguments, the
// finish reason, and data: [DONE]. As the API does, it carries usage only
// when stream_options.include_usage asks for it: then every chunk has
// "usage": null and a last chunk without choices holds the usage.
func (rd *renderer) chatStream(s *eventWriter) {
	head := func() obj {
		return obj{
			{"id", rd.id("chatcmpl-")},
			{"object", "chat.completion.chunk"},
			{"created", 0},
			{"model", rd.model},
		}
	}
	chunk := func(delta obj, finish any) obj {
		c := append(head(), member{"choices", []any{obj{{"index", 0}, {"delta", delta}, {"logprobs", nil}, {"finish_reason", finish}}}})
		if rd.usage {
			c = append(c, member{"usage", nil})
		}
		return c
	}
	// A reply of tool calls alone opens with content null, as the API's
	// does: an SDK adds up the deltas, and an empty string would reach
	// the agent's history where the real reply leaves null.
	var content any = ""
	if rd.r.Text == "" && len(rd.r.ToolCalls) > 0 {
		content = nil
	}
	s.event("", chunk(obj{{"role", "assistant"}, {"content", content}, {"refusal", nil}}, nil))
	if rd.r.Text != "" {
		s.event("", chunk(obj{{"content", rd.r.Text}}, nil))
	}
	for i, c := range rd.r.ToolCalls {
		s.event("", chunk(obj{{"tool_calls", []any{obj{{"index", i}, {"id", rd.callID(i, "call_")}, {"type", "function"},
			{"function", obj{{"name", c.Name}, {"arguments", ""}}}}}}}, nil))
		s.event("", chunk(obj{{"tool_calls", []any{obj{{"index", i},
			{"function", obj{{"arguments", string(c.Args())}}}}}}}, nil))
	}
	s.event("", chunk(obj{}, rd.chatFinish()))
	if rd.usage {
		s.event("", append(head(), member{"choices", []any{}}, member{"usage", chatUsage()}))
	}
	s.done()
}

// ---- OpenAI Responses

// messageItem is the Responses message item holding the text; done tells
// the finished item from the one response.output_item.added announces.
func (rd *renderer) messageItem(done bool) obj {
	status, content := "in_progress", []any{}
	if done {
		status, content = "completed", []any{outputText(rd.r.Text)}
	}
	return obj{{"id", rd.id("msg_")}, {"type", "message"}, {"status", status}, {"role", "assistant"}, {"content", content}}
}

// outputText is an output_text content part.
func outputText(text string) obj {
	return obj{{"type", "output_text"}, {"annotations", []any{}}, {"logprobs", []any{}}, {"text", text}}
}

// functionItem is the Responses function_call item of tool call i.
func (rd *renderer) functionItem(i int, done bool) obj {
	status, args := "in_progress", ""
	if done {
		status, args = "completed", string(rd.r.ToolCalls[i].Args())
	}
	return obj{{"id", rd.itemID(i)}, {"type", "function_call"}, {"status", status},
		{"arguments", args}, {"call_id", rd.callID(i, "call_")}, {"name", rd.r.ToolCalls[i].Name}}
}

// itemID is the id of tool call i's function_call item.
func (rd *renderer) itemID(i int) string { return fmt.Sprintf("fc_%04d_%d", rd.n, i+1) }

// responseObj is the response object; complete gives it its output and
// usage (the stream's response.created carries it without them).
func (rd *renderer) responseObj(status string, complete bool) obj {
	output := []any{}
	var usage any
	if complete {
		if rd.r.Text != "" || len(rd.r.ToolCalls) == 0 {
			output = append(output, rd.messageItem(true))
		}
		for i := range rd.r.ToolCalls {
			output = append(output, rd.functionItem(i, true))
		}
		usage = obj{
			{"input_tokens", usageInput},
			{"input_tokens_details", obj{{"cached_tokens", 0}}},
			{"output_tokens", usageOutput},
			{"output_tokens_details", obj{{"reasoning_tokens", 0}}},
			{"total_tokens", usageInput + usageOutput},
		}
	}
	return obj{
		{"id", rd.id("resp_")},
		{"object", "response"},
		{"created_at", 0},
		{"status", status},
		{"error", nil},
		{"incomplete_details", nil},
		{"model", rd.model},
		{"output", output},
		{"parallel_tool_calls", true},
		{"tool_choice", "auto"},
		{"tools", []any{}},
		{"usage", usage},
	}
}

// responsesStream writes the Responses event stream, with the events the
// API sends in their order (content_part events included: the Python
// SDK's stream helper adds text to the part they announce).
func (rd *renderer) responsesStream(s *eventWriter) {
	seq := 0
	ev := func(typ string, members ...member) {
		s.event(typ, append(obj{{"type", typ}, {"sequence_number", seq}}, members...))
		seq++
	}
	ev("response.created", member{"response", rd.responseObj("in_progress", false)})
	ev("response.in_progress", member{"response", rd.responseObj("in_progress", false)})
	out := 0
	if rd.r.Text != "" || len(rd.r.ToolCalls) == 0 {
		id := rd.id("msg_")
		ev("response.output_item.added", member{"output_index", out}, member{"item", rd.messageItem(false)})
		ev("response.content_part.added", member{"item_id", id}, member{"output_index", out}, member{"content_index", 0},
			member{"part", outputText("")})
		ev("response.output_text.delta", member{"item_id", id}, member{"output_index", out}, member{"content_index", 0},
			member{"delta", rd.r.Text}, member{"logprobs", []any{}})
		ev("response.output_text.done", member{"item_id", id}, member{"output_index", out}, member{"content_index", 0},
			member{"text", rd.r.Text}, member{"logprobs", []any{}})
		ev("response.content_part.done", member{"item_id", id}, member{"output_index", out}, member{"content_index", 0},
			member{"part", outputText(rd.r.Text)})
		ev("response.output_item.done", member{"output_index", out}, member{"item", rd.messageItem(true)})
		out++
	}
	for i, c := range rd.r.ToolCalls {
		id := rd.itemID(i)
		ev("response.output_item.added", member{"output_index", out}, member{"item", rd.functionItem(i, false)})
		ev("response.function_call_arguments.delta", member{"item_id", id}, member{"output_index", out},
			member{"delta", string(c.Args())})
		ev("response.function_call_arguments.done", member{"item_id", id}, member{"output_index", out},
			member{"name", c.Name}, member{"arguments", string(c.Args())})
		ev("response.output_item.done", member{"output_index", out}, member{"item", rd.functionItem(i, true)})
		out++
	}
	ev("response.completed", member{"response", rd.responseObj("completed", true)})
}

// ---- Gemini

// geminiObj is a GenerateContentResponse holding text and calls. last
// gives it the finish reason and the usage, which a stream sends with its
// last chunk only; oneLine asks for arguments without line breaks (an
// event's data is one line).
func (rd *renderer) geminiObj(text string, calls []ToolCall, last, oneLine bool) obj {
	parts := []any{}
	if text != "" {
		parts = append(parts, obj{{"text", text}})
	}
	for _, c := range calls {
		args := c.Args()
		if oneLine && bytes.ContainsAny(args, "\r\n") {
			var b bytes.Buffer
			_ = json.Compact(&b, args) // checkReply made sure it is JSON
			args = b.Bytes()
		}
		// Gemini has no call ids of its own, but the genai SDKs read an
		// id (FunctionCall.ID) and agents send it back with the result.
		fc := obj{}
		if c.ID != "" {
			fc = append(fc, member{"id", c.ID})
		}
		fc = append(fc, member{"name", c.Name}, member{"args", raw(args)})
		parts = append(parts, obj{{"functionCall", fc}})
	}
	cand := obj{{"content", obj{{"parts", parts}, {"role", "model"}}}}
	if last {
		cand = append(cand, member{"finishReason", "STOP"})
	}
	cand = append(cand, member{"index", 0})
	o := obj{{"candidates", []any{cand}}}
	if last {
		o = append(o, member{"usageMetadata", obj{
			{"promptTokenCount", usageInput}, {"candidatesTokenCount", usageOutput}, {"totalTokenCount", usageInput + usageOutput}}})
	}
	return append(o, member{"modelVersion", rd.model}, member{"responseId", rd.id("resp_")})
}

// geminiChunks are the chunks of a streamed Gemini reply: the text, then
// one chunk per function call, the last one with the finish reason and
// usage.
func (rd *renderer) geminiChunks() []obj {
	type chunk struct {
		text  string
		calls []ToolCall
	}
	var chunks []chunk
	if rd.r.Text != "" {
		chunks = append(chunks, chunk{text: rd.r.Text})
	}
	for i := range rd.r.ToolCalls {
		chunks = append(chunks, chunk{calls: rd.r.ToolCalls[i : i+1]})
	}
	if len(chunks) == 0 {
		chunks = append(chunks, chunk{})
	}
	out := make([]obj, len(chunks))
	for i, c := range chunks {
		out[i] = rd.geminiObj(c.text, c.calls, i == len(chunks)-1, true)
	}
	return out
}

// geminiStream writes streamGenerateContent's chunks as server-sent
// events, as alt=sse asks.
func (rd *renderer) geminiStream(s *eventWriter) {
	for _, c := range rd.geminiChunks() {
		s.event("", c)
	}
}

// geminiArray writes streamGenerateContent's chunks as the API streams
// them without alt=sse: one JSON array, an element per chunk, each
// flushed as it is written.
func (rd *renderer) geminiArray(a *arrayWriter) error {
	for _, c := range rd.geminiChunks() {
		a.element(c)
	}
	return a.close()
}

// ---- server-sent events

// streamWriter writes a streamed response a piece at a time, flushing
// after each so that an agent sees every piece when it is written. It
// keeps the first error and writes nothing after it; kind names the
// pieces in that error ("anthropic event", "gemini stream").
type streamWriter struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	kind string
	err  error
}

func newStreamWriter(w http.ResponseWriter, kind string) streamWriter {
	return streamWriter{w: w, rc: http.NewResponseController(w), kind: kind}
}

// write writes and flushes one piece, what naming it.
func (s *streamWriter) write(b []byte, what string) {
	if s.err != nil {
		return
	}
	if _, err := s.w.Write(b); err != nil {
		s.err = fmt.Errorf("wire: writing %s %s: %w", s.kind, what, err)
		return
	}
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.err = fmt.Errorf("wire: flushing %s %s: %w", s.kind, what, err)
	}
}

// eventWriter writes server-sent events.
type eventWriter struct {
	streamWriter
	buf []byte
}

// newEventWriter starts an event stream response.
func newEventWriter(w http.ResponseWriter, f Format) *eventWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &eventWriter{streamWriter: newStreamWriter(w, string(f)+" event")}
}

// event writes one event: an event: line when name is set, and data as
// one data: line.
func (s *eventWriter) event(name string, data obj) {
	b := s.buf[:0]
	if name != "" {
		b = append(append(append(b, "event: "...), name...), '\n')
	}
	b = append(b, "data: "...)
	b = appendJSON(b, data)
	b = append(b, "\n\n"...)
	s.buf = b
	if name == "" {
		name = "data"
	}
	s.write(b, name)
}

// done writes OpenAI Chat's closing data: [DONE].
func (s *eventWriter) done() { s.write([]byte("data: [DONE]\n\n"), "[DONE]") }

// arrayWriter writes a JSON array an element at a time, as Gemini
// streams without alt=sse.
type arrayWriter struct {
	streamWriter
	n int
}

// newArrayWriter starts a streamed JSON array response.
func newArrayWriter(w http.ResponseWriter) *arrayWriter {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(http.StatusOK)
	return &arrayWriter{streamWriter: newStreamWriter(w, "gemini stream")}
}

// element writes one element: the array's opening bracket before the
// first, a comma and a line break before the others.
func (a *arrayWriter) element(v obj) {
	b := []byte("[")
	if a.n > 0 {
		b = []byte(",\r\n")
	}
	a.n++
	a.write(appendJSON(b, v), fmt.Sprintf("chunk %d", a.n))
}

// close writes the closing bracket (and the opening one of an empty
// array) and returns the first error.
func (a *arrayWriter) close() error {
	end := "]"
	if a.n == 0 {
		end = "[]"
	}
	a.write([]byte(end), "the end of the array")
	return a.err
}

// ---- JSON

// obj is a JSON object whose members are written in the order given: the
// order the providers use, and the same on every run.
type obj []member

// member is one member of an obj.
type member struct {
	key string
	val any
}

// raw is JSON text written as it is, for scripted arguments whose bytes
// must arrive as scripted (encoding/json would compact them).
type raw []byte

// appendJSON appends v as JSON. v is built by this file from obj, []any,
// raw, string, int, bool and nil only; any other type is a bug here.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case string:
		return appendString(b, v)
	case raw:
		return append(b, v...)
	case obj:
		b = append(b, '{')
		for i, m := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, m.key)
			b = append(b, ':')
			b = appendJSON(b, m.val)
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	}
	panic(fmt.Sprintf("wire: appendJSON cannot write a %T", v))
}

// appendString appends s as a JSON string. Unlike encoding/json by default
// it leaves <, > and & as they are: scripted text and argument bytes reach
// the agent unchanged, and the agent sends them back the same. Invalid
// UTF-8 becomes U+FFFD, as encoding/json does; U+2028 and U+2029 are
// escaped, since some JavaScript parsers take them for line ends.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(append(b, s[start:i]...), `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
