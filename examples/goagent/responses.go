package goagent

import (
	"context"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// responsesConv is a conversation on the OpenAI Responses API. It is
// stateless (store false): every request sends the whole input, as an
// agent that does not rely on server-side state does.
type responsesConv struct {
	client openai.Client
	params responses.ResponseNewParams
	input  responses.ResponseInputParam
	stream bool
}

// newResponses starts a Responses conversation.
func newResponses(c Config, model string, tools []Tool, tag string) *responsesConv {
	params := responses.ResponseNewParams{
		Model:           shared.ResponsesModel(model),
		Instructions:    openai.String(System),
		MaxOutputTokens: openai.Int(1024),
		Store:           openai.Bool(false),
	}
	for _, t := range tools {
		ft := responses.ToolParamOfFunction(t.Name, t.Schema(), false)
		ft.OfFunction.Description = openai.String(t.Description)
		params.Tools = append(params.Tools, ft)
	}
	if tag != "" {
		params.SafetyIdentifier = openai.String(tag)
	}
	return &responsesConv{
		client: openai.NewClient(openAIOptions(c)...),
		params: params,
		input:  responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(c.Prompt, responses.EasyInputMessageRoleUser)},
		stream: c.Stream,
	}
}

func (a *responsesConv) send(ctx context.Context) (turn, error) {
	a.params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: a.input}
	var resp *responses.Response
	if a.stream {
		s := a.client.Responses.NewStreaming(ctx, a.params)
		for s.Next() {
			// The completed event carries the whole response; the
			// deltas before it are for a live display.
			if ev := s.Current(); ev.Type == "response.completed" {
				r := ev.Response
				resp = &r
			}
		}
		err := s.Err()
		s.Close()
		if err != nil {
			return turn{}, fmt.Errorf("responses stream: %w", openAIError(err))
		}
		if resp == nil {
			return turn{}, errors.New("responses stream ended without response.completed")
		}
	} else {
		r, err := a.client.Responses.New(ctx, a.params)
		if err != nil {
			return turn{}, fmt.Errorf("responses: %w", openAIError(err))
		}
		resp = r
	}
	var t turn
	for _, item := range resp.Output {
		switch item.Type {
		case "message":
			text := ""
			for _, part := range item.AsMessage().Content {
				if part.Type == "output_text" {
					text += part.Text
				}
			}
			t.Text += text
			if text != "" {
				a.input = append(a.input, responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleAssistant))
			}
		case "function_call":
			fc := item.AsFunctionCall()
			t.Calls = append(t.Calls, toolCall{ID: fc.CallID, Name: fc.Name, Args: []byte(fc.Arguments)})
			a.input = append(a.input, responses.ResponseInputItemParamOfFunctionCall(fc.Arguments, fc.CallID, fc.Name))
		}
	}
	return t, nil
}

func (a *responsesConv) addResults(rs []toolResult) {
	for _, r := range rs {
		out := responses.ResponseInputItemParamOfFunctionCallOutput(r.Output)
		out.OfFunctionCallOutput.CallID = openai.String(r.Call.ID)
		a.input = append(a.input, out)
	}
}
