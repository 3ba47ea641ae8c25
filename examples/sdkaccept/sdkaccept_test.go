package sdkaccept

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/headergold/headergold/internal/wire"
)

// shapes are the reply shapes every SDK must accept. The arguments keep
// bytes a re-encoder would change (spaces between tokens, <, > and &, a
// number written 1.50, non-ASCII) so that a test sees whether they arrive
// as scripted.
var shapes = []struct {
	name  string
	reply wire.Reply
}{
	{"text", wire.Reply{Text: "It is 12 °C <and> clear & dry."}},
	{"one tool call", wire.Reply{ToolCalls: []wire.ToolCall{
		{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Oslo <&>", "days":1.50}`)},
	}}},
	{"text and a tool call", wire.Reply{Text: "Let me check.", ToolCalls: []wire.ToolCall{
		{ID: "toolu_01", Name: "read_file", Arguments: json.RawMessage(`{"path":"docs/ü.md"}`)},
	}}},
	{"two tool calls", wire.Reply{ToolCalls: []wire.ToolCall{
		{ID: "c_a", Name: "ls", Arguments: json.RawMessage(`{"dir":".","all":true}`)},
		{ID: "c_b", Name: "now"},
	}}},
}

// hit is one request the fake provider answered.
type hit struct {
	path   string
	stream bool
}

// provider is a loopback fake provider answering every generation request
// with one reply (or, when fail is set, with that error), and recording
// what it was asked.
type provider struct {
	url   string
	reply wire.Reply
	fail  string

	mu   sync.Mutex
	n    int
	hits []hit
}

// newProvider starts a provider, closed when the test ends.
func newProvider(t *testing.T, reply wire.Reply, fail string) *provider {
	t.Helper()
	p := &provider{reply: reply, fail: fail}
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

// serve answers one request the way the harness's fake provider does.
func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	e, ok := wire.RouteURL(r.URL)
	if !ok || r.Method != http.MethodPost {
		wire.WriteError(w, "", http.StatusNotFound, fmt.Sprintf("%s %s is not served; want %s", r.Method, r.URL.Path, wire.Paths))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		wire.WriteError(w, e.Format, http.StatusBadRequest, "reading the body: "+err.Error())
		return
	}
	if e.CountTokens {
		wire.WriteCountTokens(w, body)
		return
	}
	parts, err := wire.Split(body, e.Format)
	if err != nil {
		wire.WriteError(w, e.Format, http.StatusBadRequest, err.Error())
		return
	}
	ask := wire.AskOf(e, parts)
	stream := ask.Stream
	p.mu.Lock()
	p.n++
	n := p.n
	p.hits = append(p.hits, hit{r.URL.Path, stream})
	p.mu.Unlock()
	if p.fail != "" {
		wire.WriteError(w, e.Format, http.StatusBadRequest, p.fail)
		return
	}
	if err := wire.WriteResponse(w, e, ask, n, p.reply); err != nil {
		wire.WriteError(w, e.Format, http.StatusInternalServerError, fmt.Sprintf("request %d: %v", n, err))
	}
}

// checkHits asserts the SDK sent exactly one generation request, to path,
// streaming or not as asked.
func (p *provider) checkHits(t *testing.T, path string, stream bool) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.hits) != 1 || !strings.HasPrefix(p.hits[0].path, path) || p.hits[0].stream != stream {
		t.Errorf("requests %+v, want one to %s with stream=%v", p.hits, path, stream)
	}
}

// got is what an SDK read from a reply.
type got struct {
	text  string
	calls []gotCall
	stop  string
}

// gotCall is a tool call as an SDK read it.
type gotCall struct {
	id, name string
	args     []byte
}

// check compares what an SDK read with the scripted reply. exactArgs says
// whether the SDK hands out the argument bytes (Anthropic and OpenAI do);
// genai decodes them into a map, so there the JSON value must be equal.
func check(t *testing.T, reply wire.Reply, g got, wantStop string, exactArgs bool) {
	t.Helper()
	if g.text != reply.Text {
		t.Errorf("text %q, want %q", g.text, reply.Text)
	}
	if g.stop != wantStop {
		t.Errorf("stop reason %q, want %q", g.stop, wantStop)
	}
	if len(g.calls) != len(reply.ToolCalls) {
		t.Fatalf("%d tool calls, want %d: %+v", len(g.calls), len(reply.ToolCalls), g.calls)
	}
	for i, c := range reply.ToolCalls {
		gc := g.calls[i]
		if gc.id != c.ID || gc.name != c.Name {
			t.Errorf("tool call %d: id %q name %q, want %q %q", i, gc.id, gc.name, c.ID, c.Name)
		}
		if exactArgs {
			if !bytes.Equal(gc.args, c.Args()) {
				t.Errorf("tool call %d: argument bytes %s, want %s", i, gc.args, c.Args())
			}
		} else if a, b := canonical(t, gc.args), canonical(t, c.Args()); a != b {
			t.Errorf("tool call %d: arguments %s, want %s", i, a, b)
		}
	}
}

// canonical is JSON text re-encoded with sorted keys, for comparing values.
func canonical(t *testing.T, data []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("arguments %s: %v", data, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// stopOf picks the stop reason for a reply with or without tool calls.
func stopOf(reply wire.Reply, text, tools string) string {
	if len(reply.ToolCalls) > 0 {
		return tools
	}
	return text
}

// anthropicClient is an Anthropic client for the provider.
func anthropicClient(p *provider) anthropic.Client {
	return anthropic.NewClient(aoption.WithBaseURL(p.url), aoption.WithAPIKey("dummy"), aoption.WithMaxRetries(0))
}

// anthropicParams is a minimal Messages request.
var anthropicParams = anthropic.MessageNewParams{
	Model:     "claude-test",
	MaxTokens: 64,
	Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Oslo?"))},
}

// fromAnthropic reads an Anthropic message.
func fromAnthropic(m *anthropic.Message) got {
	g := got{stop: string(m.StopReason)}
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			g.text += b.Text
		case "tool_use":
			g.calls = append(g.calls, gotCall{b.ID, b.Name, b.Input})
		}
	}
	return g
}

func TestAnthropicMessages(t *testing.T) {
	for _, s := range shapes {
		want := stopOf(s.reply, "end_turn", "tool_use")
		t.Run(s.name, func(t *testing.T) {
			p := newProvider(t, s.reply, "")
			c := anthropicClient(p)
			m, err := c.Messages.New(context.Background(), anthropicParams)
			if err != nil {
				t.Fatalf("Messages.New: %v", err)
			}
			p.checkHits(t, "/v1/messages", false)
			check(t, s.reply, fromAnthropic(m), want, true)
			if m.ID != "msg_0001" || m.Model != "claude-test" || m.Usage.InputTokens == 0 {
				t.Errorf("id %q, model %q, usage %+v", m.ID, m.Model, m.Usage)
			}
		})
		t.Run(s.name+"/stream", func(t *testing.T) {
			p := newProvider(t, s.reply, "")
			c := anthropicClient(p)
			stream := c.Messages.NewStreaming(context.Background(), anthropicParams)
			defer stream.Close()
			var m anthropic.Message
			events := 0
			for stream.Next() {
				if err := m.Accumulate(stream.Current()); err != nil {
					t.Fatalf("Accumulate: %v", err)
				}
				events++
			}
			if err := stream.Err(); err != nil {
				t.Fatalf("stream: %v", err)
			}
			p.checkHits(t, "/v1/messages", true)
			if events < 3 {
				t.Fatalf("the SDK saw %d events", events)
			}
			check(t, s.reply, fromAnthropic(&m), want, true)
			if m.ID != "msg_0001" || m.Usage.OutputTokens == 0 {
				t.Errorf("id %q, usage %+v", m.ID, m.Usage)
			}
		})
	}
}

func TestAnthropicCountTokens(t *testing.T) {
	p := newProvider(t, wire.Reply{}, "")
	c := anthropicClient(p)
	n, err := c.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{
		Model:    "claude-test",
		Messages: anthropicParams.Messages,
	})
	if err != nil {
		t.Fatalf("CountTokens: %v", err)
	}
	if n.InputTokens < 1 {
		t.Errorf("input_tokens %d", n.InputTokens)
	}
}

// openaiClient is an OpenAI client for the provider; the SDK wants /v1 in
// its base URL.
func openaiClient(p *provider) openai.Client {
	return openai.NewClient(ooption.WithBaseURL(p.url+"/v1"), ooption.WithAPIKey("dummy"), ooption.WithMaxRetries(0))
}

// chatParams is a minimal Chat Completions request.
var chatParams = openai.ChatCompletionNewParams{
	Model:    "gpt-test",
	Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Oslo?")},
}

// fromChat reads a chat completion.
func fromChat(t *testing.T, c *openai.ChatCompletion) got {
	t.Helper()
	if len(c.Choices) != 1 {
		t.Fatalf("%d choices", len(c.Choices))
	}
	ch := c.Choices[0]
	g := got{text: ch.Message.Content, stop: ch.FinishReason}
	for _, tc := range ch.Message.ToolCalls {
		g.calls = append(g.calls, gotCall{tc.ID, tc.Function.Name, []byte(tc.Function.Arguments)})
	}
	return g
}

func TestOpenAIChatCompletions(t *testing.T) {
	for _, s := range shapes {
		want := stopOf(s.reply, "stop", "tool_calls")
		t.Run(s.name, func(t *testing.T) {
			p := newProvider(t, s.reply, "")
			c := openaiClient(p)
			cc, err := c.Chat.Completions.New(context.Background(), chatParams)
			if err != nil {
				t.Fatalf("Chat.Completions.New: %v", err)
			}
			p.checkHits(t, "/v1/chat/completions", false)
			check(t, s.reply, fromChat(t, cc), want, true)
			if cc.ID != "chatcmpl-0001" || cc.Model != "gpt-test" || cc.Usage.TotalTokens == 0 {
				t.Errorf("id %q, model %q, usage %+v", cc.ID, cc.Model, cc.Usage)
			}
		})
		// The API streams usage only when stream_options.include_usage
		// asks, in a last chunk without choices; the accumulator reads
		// either stream.
		for _, usage := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream/include_usage=%v", s.name, usage), func(t *testing.T) {
				p := newProvider(t, s.reply, "")
				c := openaiClient(p)
				params := chatParams
				if usage {
					params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
				}
				stream := c.Chat.Completions.NewStreaming(context.Background(), params)
				defer stream.Close()
				var acc openai.ChatCompletionAccumulator
				for stream.Next() {
					if !acc.AddChunk(stream.Current()) {
						t.Fatalf("the accumulator refused chunk %+v", stream.Current())
					}
				}
				if err := stream.Err(); err != nil {
					t.Fatalf("stream: %v", err)
				}
				p.checkHits(t, "/v1/chat/completions", true)
				check(t, s.reply, fromChat(t, &acc.ChatCompletion), want, true)
				if acc.ID != "chatcmpl-0001" || (acc.Usage.TotalTokens != 0) != usage {
					t.Errorf("id %q, usage %+v (include_usage %v)", acc.ID, acc.Usage, usage)
				}
			})
		}
	}
}

// responsesParams is a minimal Responses request.
var responsesParams = responses.ResponseNewParams{
	Model: "gpt-test",
	Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Oslo?")},
}

// fromResponse reads a Responses response.
func fromResponse(r *responses.Response) got {
	g := got{text: r.OutputText(), stop: string(r.Status)}
	for _, it := range r.Output {
		if it.Type == "function_call" {
			fc := it.AsFunctionCall()
			g.calls = append(g.calls, gotCall{fc.CallID, fc.Name, []byte(fc.Arguments)})
		}
	}
	return g
}

func TestOpenAIResponses(t *testing.T) {
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			p := newProvider(t, s.reply, "")
			c := openaiClient(p)
			r, err := c.Responses.New(context.Background(), responsesParams)
			if err != nil {
				t.Fatalf("Responses.New: %v", err)
			}
			p.checkHits(t, "/v1/responses", false)
			check(t, s.reply, fromResponse(r), "completed", true)
			if r.ID != "resp_0001" || r.Model != "gpt-test" || r.Usage.TotalTokens == 0 {
				t.Errorf("id %q, model %q, usage %+v", r.ID, r.Model, r.Usage)
			}
		})
		t.Run(s.name+"/stream", func(t *testing.T) {
			p := newProvider(t, s.reply, "")
			c := openaiClient(p)
			stream := c.Responses.NewStreaming(context.Background(), responsesParams)
			defer stream.Close()
			var (
				completed *responses.Response
				textDelta string
				argDeltas = map[string]string{}
				seq       int64
			)
			for stream.Next() {
				ev := stream.Current()
				if ev.SequenceNumber != seq {
					t.Errorf("event %s has sequence_number %d, want %d", ev.Type, ev.SequenceNumber, seq)
				}
				seq++
				switch ev.Type {
				case "response.output_text.delta":
					textDelta += ev.Delta
				case "response.function_call_arguments.delta":
					argDeltas[ev.ItemID] += ev.Delta
				case "response.completed":
					r := ev.AsResponseCompleted().Response
					completed = &r
				}
			}
			if err := stream.Err(); err != nil {
				t.Fatalf("stream: %v", err)
			}
			p.checkHits(t, "/v1/responses", true)
			if completed == nil {
				t.Fatal("no response.completed event")
			}
			g := fromResponse(completed)
			check(t, s.reply, g, "completed", true)
			if textDelta != s.reply.Text {
				t.Errorf("text deltas %q, want %q", textDelta, s.reply.Text)
			}
			for i, c := range s.reply.ToolCalls {
				if d := argDeltas[fmt.Sprintf("fc_0001_%d", i+1)]; d != string(c.Args()) {
					t.Errorf("argument deltas of call %d %q, want %s", i, d, c.Args())
				}
			}
		})
	}
}

// genaiClient is a genai client for the Gemini API at the provider. It
// refuses to start without an API key, so it gets a dummy one.
func genaiClient(t *testing.T, p *provider) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "dummy",
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: p.url},
	})
	if err != nil {
		t.Fatalf("genai.NewClient: %v", err)
	}
	return c
}

// fromGemini adds a response's parts to g.
func fromGemini(t *testing.T, r *genai.GenerateContentResponse, g *got) {
	t.Helper()
	if len(r.Candidates) != 1 || r.Candidates[0].Content == nil {
		t.Fatalf("response without one candidate with content: %+v", r)
	}
	cand := r.Candidates[0]
	for _, part := range cand.Content.Parts {
		g.text += part.Text
		if fc := part.FunctionCall; fc != nil {
			args, err := json.Marshal(fc.Args)
			if err != nil {
				t.Fatal(err)
			}
			g.calls = append(g.calls, gotCall{fc.ID, fc.Name, args})
		}
	}
	if cand.FinishReason != "" {
		g.stop = string(cand.FinishReason)
	}
}

func TestGenaiGenerateContent(t *testing.T) {
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			p := newProvider(t, s.reply, "")
			c := genaiClient(t, p)
			r, err := c.Models.GenerateContent(context.Background(), "gemini-test", genai.Text("Weather in Oslo?"), nil)
			if err != nil {
				t.Fatalf("GenerateContent: %v", err)
			}
			p.checkHits(t, "/v1beta/models/gemini-test:generateContent", false)
			var g got
			fromGemini(t, r, &g)
			check(t, s.reply, g, "STOP", false)
			if r.ResponseID != "resp_0001" || r.ModelVersion != "gemini-test" || r.UsageMetadata == nil {
				t.Errorf("responseId %q, modelVersion %q, usage %v", r.ResponseID, r.ModelVersion, r.UsageMetadata)
			}
		})
		t.Run(s.name+"/stream", func(t *testing.T) {
			p := newProvider(t, s.reply, "")
			c := genaiClient(t, p)
			var g got
			chunks := 0
			for r, err := range c.Models.GenerateContentStream(context.Background(), "gemini-test", genai.Text("Weather in Oslo?"), nil) {
				if err != nil {
					t.Fatalf("GenerateContentStream: %v", err)
				}
				fromGemini(t, r, &g)
				chunks++
			}
			p.checkHits(t, "/v1beta/models/gemini-test:streamGenerateContent", true)
			if chunks == 0 {
				t.Fatal("no chunks")
			}
			check(t, s.reply, g, "STOP", false)
		})
	}
}

// TestErrorsSurface checks that a provider-style error reaches the caller
// as the SDK's own error, with the message, streaming and not.
func TestErrorsSurface(t *testing.T) {
	const msg = "request 2 is beyond the script of 1 reply (POST /v1/messages)"
	ctx := context.Background()
	hasMsg := func(t *testing.T, what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want one containing %q", what, err, msg)
		}
	}
	// openai-go keeps the provider's message out of Error() (it may hold
	// secrets, its comment says): the message is in *openai.Error.
	hasOpenAIMsg := func(t *testing.T, what string, err error) {
		t.Helper()
		var oe *openai.Error
		if !errors.As(err, &oe) || oe.StatusCode != http.StatusBadRequest || oe.Message != msg || oe.Type != "invalid_request_error" {
			t.Errorf("%s: error %v, want an *openai.Error 400 invalid_request_error with message %q", what, err, msg)
		}
	}
	t.Run("anthropic", func(t *testing.T) {
		c := anthropicClient(newProvider(t, wire.Reply{}, msg))
		_, err := c.Messages.New(ctx, anthropicParams)
		hasMsg(t, "Messages.New", err)
		var ae *anthropic.Error
		if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest || !strings.Contains(ae.RawJSON(), `"invalid_request_error"`) {
			t.Errorf("Messages.New error %v, want an *anthropic.Error 400 invalid_request_error", err)
		}
		stream := c.Messages.NewStreaming(ctx, anthropicParams)
		for stream.Next() {
		}
		hasMsg(t, "Messages.NewStreaming", stream.Err())
		stream.Close()
	})
	t.Run("openai-chat", func(t *testing.T) {
		c := openaiClient(newProvider(t, wire.Reply{}, msg))
		_, err := c.Chat.Completions.New(ctx, chatParams)
		hasOpenAIMsg(t, "Chat.Completions.New", err)
		stream := c.Chat.Completions.NewStreaming(ctx, chatParams)
		for stream.Next() {
		}
		hasOpenAIMsg(t, "Chat.Completions.NewStreaming", stream.Err())
		stream.Close()
	})
	t.Run("openai-responses", func(t *testing.T) {
		c := openaiClient(newProvider(t, wire.Reply{}, msg))
		_, err := c.Responses.New(ctx, responsesParams)
		hasOpenAIMsg(t, "Responses.New", err)
		stream := c.Responses.NewStreaming(ctx, responsesParams)
		for stream.Next() {
		}
		hasOpenAIMsg(t, "Responses.NewStreaming", stream.Err())
		stream.Close()
	})
	t.Run("gemini", func(t *testing.T) {
		c := genaiClient(t, newProvider(t, wire.Reply{}, msg))
		_, err := c.Models.GenerateContent(ctx, "gemini-test", genai.Text("hi"), nil)
		hasMsg(t, "GenerateContent", err)
		var apiErr genai.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != http.StatusBadRequest || apiErr.Status != "INVALID_ARGUMENT" {
			t.Errorf("GenerateContent error %v, want an APIError 400 INVALID_ARGUMENT", err)
		}
		var streamErr error
		for _, err := range c.Models.GenerateContentStream(ctx, "gemini-test", genai.Text("hi"), nil) {
			if err != nil {
				streamErr = err
				break
			}
		}
		hasMsg(t, "GenerateContentStream", streamErr)
	})
}
