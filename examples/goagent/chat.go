package goagent

import (
	"context"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// chatConv is a conversation on OpenAI Chat Completions.
type chatConv struct {
	client openai.Client
	params openai.ChatCompletionNewParams
	stream bool
}

// openAIOptions are the client options of both OpenAI APIs.
func openAIOptions(c Config) []option.RequestOption {
	opts := []option.RequestOption{option.WithAPIKey(c.APIKey), option.WithMaxRetries(0)}
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(c.BaseURL))
	}
	if c.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(c.HTTPClient))
	}
	return opts
}

// openAIError adds the API's error message to err: openai-go's error
// string gives the status only, and an agent run by headergold fails with
// this text, where the fake provider says what it expected.
func openAIError(err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && apiErr.Message != "" {
		return fmt.Errorf("%w: %s", err, apiErr.Message)
	}
	return err
}

// newChat starts a Chat Completions conversation.
func newChat(c Config, model string, tools []Tool, tag string) *chatConv {
	params := openai.ChatCompletionNewParams{
		Model:               shared.ChatModel(model),
		MaxCompletionTokens: openai.Int(1024),
		Messages:            []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(System), openai.UserMessage(c.Prompt)},
	}
	for _, t := range tools {
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  shared.FunctionParameters(t.Schema()),
		}))
	}
	if tag != "" {
		params.SafetyIdentifier = openai.String(tag)
	}
	return &chatConv{client: openai.NewClient(openAIOptions(c)...), params: params, stream: c.Stream}
}

func (a *chatConv) send(ctx context.Context) (turn, error) {
	var msg openai.ChatCompletionMessage
	if a.stream {
		s := a.client.Chat.Completions.NewStreaming(ctx, a.params)
		var acc openai.ChatCompletionAccumulator
		for s.Next() {
			if !acc.AddChunk(s.Current()) {
				s.Close()
				return turn{}, errors.New("chat stream: a chunk does not continue the completion")
			}
		}
		err := s.Err()
		s.Close()
		if err != nil {
			return turn{}, fmt.Errorf("chat stream: %w", openAIError(err))
		}
		if len(acc.Choices) == 0 {
			return turn{}, errors.New("chat stream ended without a choice")
		}
		msg = acc.Choices[0].Message
	} else {
		cc, err := a.client.Chat.Completions.New(ctx, a.params)
		if err != nil {
			return turn{}, fmt.Errorf("chat completions: %w", openAIError(err))
		}
		if len(cc.Choices) == 0 {
			return turn{}, errors.New("chat completion without a choice")
		}
		msg = cc.Choices[0].Message
	}
	a.params.Messages = append(a.params.Messages, msg.ToParam())
	t := turn{Text: msg.Content}
	for _, tc := range msg.ToolCalls {
		t.Calls = append(t.Calls, toolCall{ID: tc.ID, Name: tc.Function.Name, Args: []byte(tc.Function.Arguments)})
	}
	return t, nil
}

func (a *chatConv) addResults(rs []toolResult) {
	for _, r := range rs {
		a.params.Messages = append(a.params.Messages, openai.ToolMessage(r.Output, r.Call.ID))
	}
}
