package wire

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// topMembers yields the top-level members of a JSON object as gjson reads
// them: an independent reading of what a split's scan feeds the rule.
func topMembers(body []byte) func(func(string, byte) bool) {
	return func(yield func(string, byte) bool) {
		gjson.ParseBytes(body).ForEach(func(k, v gjson.Result) bool {
			return yield(k.String(), v.Raw[0])
		})
	}
}

// What the body rule refuses, per format, with the exact message; shape
// marks what the shape alone (replay diff's check) refuses too.
func TestBodyRuleRefuses(t *testing.T) {
	for _, c := range []struct {
		f     Format
		body  string
		shape bool
		want  string
	}{
		// Anthropic.
		{Anthropic, `{"model":"m","max_tokens":5}`, true, `member "messages" is missing; Anthropic expects an array`},
		{Anthropic, `{"model":"m","max_tokens":5,"messages":{"role":"user"}}`, true, `member "messages" is an object; Anthropic expects an array`},
		{Anthropic, `{"model":"m","max_tokens":5,"messages":null}`, true, `member "messages" is null; Anthropic expects an array`},
		{Anthropic, `{"model":"m","max_tokens":5,"messages":[],"tools":{"name":"a"}}`, true, `member "tools" is an object; Anthropic expects an array`},
		{Anthropic, `{"model":"m","max_tokens":5,"messages":[],"tools":"a"}`, true, `member "tools" is a string; Anthropic expects an array`},
		{Anthropic, `{"model":"m","max_tokens":5,"messages":[],"system":{"text":"s"}}`, true, `member "system" is an object; Anthropic expects an array or a string`},
		{Anthropic, `{"model":"m","max_tokens":5,"messages":[],"system":true}`, true, `member "system" is a boolean; Anthropic expects an array or a string`},
		{Anthropic, `{"model":7,"max_tokens":5,"messages":[]}`, true, `member "model" is a number; Anthropic expects a string`},
		{Anthropic, `{"model":"m","max_tokens":"5","messages":[]}`, true, `member "max_tokens" is a string; Anthropic expects a number`},
		{Anthropic, `{"model":"m","max_tokens":null,"messages":[]}`, true, `member "max_tokens" is null; Anthropic expects a number`},
		{Anthropic, `{"model":"m","messages":[]}`, false, `member "max_tokens" is missing; Anthropic expects a number`},
		{Anthropic, `{"max_tokens":5,"messages":[]}`, false, `member "model" is missing; Anthropic expects a string (a body without one has anthropic_version and names its model in the URL, as Amazon Bedrock and Google Vertex AI take it)`},
		// The first type refused in body order, before a missing member.
		{Anthropic, `{"messages":[],"system":1,"tools":{}}`, true, `member "system" is a number; Anthropic expects an array or a string`},
		// OpenAI Chat.
		{OpenAIChat, `{"model":"m"}`, true, `member "messages" is missing; OpenAI Chat expects an array`},
		{OpenAIChat, `{"model":"m","messages":"hi"}`, true, `member "messages" is a string; OpenAI Chat expects an array`},
		{OpenAIChat, `{"model":"m","messages":[],"tools":{"type":"function"}}`, true, `member "tools" is an object; OpenAI Chat expects an array`},
		{OpenAIChat, `{"model":"m","messages":[],"functions":{}}`, true, `member "functions" is an object; OpenAI Chat expects an array`},
		{OpenAIChat, `{"model":["m"],"messages":[]}`, true, `member "model" is an array; OpenAI Chat expects a string`},
		// OpenAI Responses.
		{OpenAIResponses, `{"model":"m","tools":[]}`, true, `it has none of the members "input", "instructions", "previous_response_id", "conversation", "prompt" or "max_output_tokens"; OpenAI Responses expects one of them`},
		{OpenAIResponses, `{"model":"m","input":{"role":"user"}}`, true, `member "input" is an object; OpenAI Responses expects an array or a string`},
		{OpenAIResponses, `{"model":"m","input":"hi","instructions":["be brief"]}`, true, `member "instructions" is an array; OpenAI Responses expects a string`},
		{OpenAIResponses, `{"model":"m","input":"hi","tools":{}}`, true, `member "tools" is an object; OpenAI Responses expects an array`},
		{OpenAIResponses, `{"input":"hi"}`, false, `member "model" is missing; OpenAI Responses expects a string (or a prompt whose stored settings name the model)`},
		{OpenAIResponses, `{"model":null,"input":"hi"}`, false, `member "model" is null; OpenAI Responses expects a string (or a prompt whose stored settings name the model)`},
		{OpenAIResponses, `{"prompt":null,"input":"hi"}`, false, `member "model" is missing; OpenAI Responses expects a string (or a prompt whose stored settings name the model)`},
		{Anthropic, `{"anthropic_version":null,"max_tokens":5,"messages":[]}`, false, `member "model" is missing; Anthropic expects a string (a body without one has anthropic_version and names its model in the URL, as Amazon Bedrock and Google Vertex AI take it)`},
		// Gemini.
		{Gemini, `{"systemInstruction":{"parts":[]}}`, true, `member "contents" is missing; Gemini expects an array or an object`},
		{Gemini, `{"contents":"hi"}`, true, `member "contents" is a string; Gemini expects an array or an object`},
		{Gemini, `{"contents":null}`, true, `member "contents" is null; Gemini expects an array or an object`},
		{Gemini, `{"contents":[],"systemInstruction":"be brief"}`, true, `member "systemInstruction" is a string; Gemini expects an object`},
		{Gemini, `{"contents":[],"system_instruction":[{"parts":[]}]}`, true, `member "system_instruction" is an array; Gemini expects an object`},
		{Gemini, `{"contents":[],"tools":"x"}`, true, `member "tools" is a string; Gemini expects an array or an object`},
	} {
		p, err := Split([]byte(c.body), c.f)
		if err != nil {
			t.Fatalf("%s %s: %v", c.f, c.body, err)
		}
		err = p.Refused()
		var be *BodyError
		if err == nil || err.Error() != c.want || !errors.As(err, &be) || be.Format != c.f {
			t.Errorf("%s %s: Refused() = %v\nwant %s", c.f, c.body, err, c.want)
		}
		if err := CheckRequest(c.f, topMembers([]byte(c.body))); err == nil || err.Error() != c.want {
			t.Errorf("%s %s: CheckRequest = %v, want %s", c.f, c.body, err, c.want)
		}
		err = CheckShape(c.f, topMembers([]byte(c.body)))
		if c.shape && (err == nil || err.Error() != c.want) || !c.shape && err != nil {
			t.Errorf("%s %s: CheckShape = %v, want %v", c.f, c.body, err, c.shape)
		}
	}
	if err := CheckShape("cohere", topMembers([]byte(`{}`))); err == nil || !strings.Contains(err.Error(), `unknown wire format "cohere"`) {
		t.Errorf("an unknown format: %v", err)
	}
}

// What a provider takes is taken: null for an optional member, Gemini's
// single object for a repeated field, and the forms of a body that name
// the model elsewhere.
func TestBodyRuleAccepts(t *testing.T) {
	for _, c := range []struct {
		f    Format
		body string
	}{
		{Anthropic, `{"model":"m","max_tokens":1024,"messages":[]}`},
		{Anthropic, `{"model":"m","max_tokens":1.024e3,"messages":[{"role":"user","content":"hi"}],"system":"s","tools":[]}`},
		{Anthropic, `{"model":"m","max_tokens":0,"messages":[],"system":[{"type":"text","text":"s"}]}`},
		{Anthropic, `{"model":"m","max_tokens":5,"messages":[],"system":null,"tools":null}`},
		// Amazon Bedrock and Google Vertex AI: the model is in the URL.
		{Anthropic, `{"anthropic_version":"bedrock-2023-05-31","max_tokens":5,"messages":[],"system":"s","tools":[]}`},
		{Anthropic, `{"anthropic_version":"vertex-2023-10-16","max_tokens":5,"messages":[]}`},
		// Members the rule does not read take any value.
		{Anthropic, `{"model":"m","max_tokens":5,"messages":[],"metadata":null,"stream":"yes","tool_choice":[]}`},
		{OpenAIChat, `{"model":"m","messages":[]}`},
		{OpenAIChat, `{"model":"m","messages":[],"tools":null,"functions":null}`},
		// Azure OpenAI deployments and compatible servers take no model.
		{OpenAIChat, `{"messages":[{"role":"user","content":"hi"}],"tools":[]}`},
		{OpenAIChat, `{"model":null,"messages":[]}`},
		{OpenAIResponses, `{"model":"m","input":"hi"}`},
		{OpenAIResponses, `{"model":"m","input":[],"instructions":null,"tools":null}`},
		{OpenAIResponses, `{"model":"m","input":null,"previous_response_id":"r1"}`},
		{OpenAIResponses, `{"model":"m","conversation":"conv_1"}`},
		{OpenAIResponses, `{"model":"m","max_output_tokens":5}`},
		// A stored prompt names the model.
		{OpenAIResponses, `{"prompt":{"id":"pmpt_1"},"input":"hi"}`},
		{OpenAIResponses, `{"prompt":{"id":"pmpt_1"}}`},
		{OpenAIResponses, `{"model":null,"prompt":{"id":"pmpt_1"},"input":[]}`},
		{Gemini, `{"contents":[]}`},
		{Gemini, `{"contents":{"parts":{"text":"hi"}},"tools":{"function_declarations":[{"name":"f"}]}}`},
		{Gemini, `{"contents":[],"tools":null,"systemInstruction":null}`},
		{Gemini, `{"contents":[],"system_instruction":{"parts":{"text":"s"}}}`},
		{Gemini, "{\n  \"contents\": [],\n  \"tools\": {\"functionDeclarations\": []}\n}\n"},
	} {
		p, err := Split([]byte(c.body), c.f)
		if err != nil {
			t.Fatalf("%s %s: %v", c.f, c.body, err)
		}
		if err := p.Refused(); err != nil {
			t.Errorf("%s %s: refused: %v", c.f, c.body, err)
		}
		if err := CheckRequest(c.f, topMembers([]byte(c.body))); err != nil {
			t.Errorf("%s %s: CheckRequest: %v", c.f, c.body, err)
		}
	}
}

// Every body of the shared corpus, real and fantasy, is one its provider
// took: the rule takes them all.
func TestBodyRuleTakesEveryCorpusBody(t *testing.T) {
	bodies, formats := corpusBodies(t)
	for i, b := range bodies {
		p, err := Split(b, formats[i])
		if err != nil {
			t.Fatalf("%s body %d: %v", formats[i], i+1, err)
		}
		if err := p.Refused(); err != nil {
			t.Errorf("%s body %d: %v: %.200s", formats[i], i+1, err, b)
		}
	}
}

// The rule a split applies as it reads the members is the rule read from
// the members afterwards, on random bodies that it takes and refuses alike,
// pretty-printed or not, and after a body whose header it repeats.
func TestBodyRuleInSplitAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	outcomes := map[bool]int{}
	var last *Parts
	for i := range 20000 {
		f := Formats[i%len(Formats)]
		body := randomBody(rng, f)
		p, err := SplitAfter(body, f, last)
		if err != nil {
			t.Fatalf("%s %q: %v", f, body, err)
		}
		last = p
		got := p.Refused()
		want := CheckRequest(f, topMembers(body))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s %q: Refused() = %v, CheckRequest = %v", f, body, got, want)
		}
		outcomes[got == nil]++
	}
	t.Logf("taken %d, refused %d", outcomes[true], outcomes[false])
	if outcomes[true] < 1000 || outcomes[false] < 1000 {
		t.Errorf("random bodies taken %d, refused %d: want both often", outcomes[true], outcomes[false])
	}
}

// ShapeRefusals, which reads a body once for every format, says of each
// format what CheckShape in it says, on random bodies of every format.
func TestShapeRefusalsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	refused := 0
	for i := range 20000 {
		body := randomBody(rng, Formats[i%len(Formats)])
		r := ShapeRefusals(topMembers(body))
		for _, f := range Formats {
			if err := CheckShape(f, topMembers(body)); r.Has(f) != (err != nil) {
				t.Fatalf("%s %q: ShapeRefusals says %v, CheckShape %v", f, body, r.Has(f), err)
			}
		}
		if r.Has(Formats[i%len(Formats)]) {
			refused++
		}
	}
	if refused < 1000 || refused > 19000 {
		t.Errorf("%d of 20000 bodies refused in their own format: want both outcomes often", refused)
	}
	if !Refusals(0).Has("nonsense") {
		t.Error("an unknown format takes a body; CheckShape refuses it")
	}
}
