package goagent

import (
	"context"
	"errors"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// anthropicConv is a conversation on the Anthropic Messages API.
type anthropicConv struct {
	client anthropic.Client
	params anthropic.MessageNewParams
	stream bool
}

// newAnthropic starts a Messages conversation.
func newAnthropic(c Config, model string, tools []Tool, tag string) *anthropicConv {
	// WithoutEnvironmentDefaults: everything comes from c, which the
	// caller read through its own getenv; an in-process run must not
	// pick up the machine's ANTHROPIC_* variables.
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithAPIKey(c.APIKey), option.WithMaxRetries(0)}
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(c.BaseURL))
	}
	if c.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(c.HTTPClient))
	}
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: 1024,
		System:    []anthropic.TextBlockParam{{Text: System}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(c.Prompt))},
	}
	for _, t := range tools {
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
			Name:        t.Name,
			Description: anthropic.String(t.Description),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: t.Properties, Required: t.Required},
		}})
	}
	if tag != "" {
		params.Metadata = anthropic.MetadataParam{UserID: anthropic.String(tag)}
	}
	return &anthropicConv{client: anthropic.NewClient(opts...), params: params, stream: c.Stream}
}

func (a *anthropicConv) send(ctx context.Context) (turn, error) {
	var msg anthropic.Message
	if a.stream {
		s := a.client.Messages.NewStreaming(ctx, a.params)
		for s.Next() {
			if err := msg.Accumulate(s.Current()); err != nil {
				s.Close()
				return turn{}, fmt.Errorf("reading the message stream: %w", err)
			}
		}
		err := s.Err()
		s.Close()
		if err != nil {
			return turn{}, fmt.Errorf("message stream: %w", err)
		}
		// A stream without event: lines parses as zero events and no
		// error; an empty message here says the reply was not read.
		if msg.ID == "" {
			return turn{}, errors.New("message stream ended without a message_start event")
		}
	} else {
		m, err := a.client.Messages.New(ctx, a.params)
		if err != nil {
			return turn{}, fmt.Errorf("messages: %w", err)
		}
		msg = *m
	}
	a.params.Messages = append(a.params.Messages, msg.ToParam())
	var t turn
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			t.Text += b.Text
		case "tool_use":
			t.Calls = append(t.Calls, toolCall{ID: b.ID, Name: b.Name, Args: b.Input})
		}
	}
	return t, nil
}

func (a *anthropicConv) addResults(rs []toolResult) {
	blocks := make([]anthropic.ContentBlockParamUnion, len(rs))
	for i, r := range rs {
		blocks[i] = anthropic.NewToolResultBlock(r.Call.ID, r.Output, r.IsError)
	}
	a.params.Messages = append(a.params.Messages, anthropic.NewUserMessage(blocks...))
}
