package goagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/genai"
)

// geminiConv is a conversation on Gemini generateContent.
type geminiConv struct {
	client   *genai.Client
	model    string
	config   *genai.GenerateContentConfig
	contents []*genai.Content
	stream   bool
}

// newGemini starts a generateContent conversation.
func newGemini(ctx context.Context, c Config, model string, tools []Tool) (*geminiConv, error) {
	// The backend is explicit so that GOOGLE_GENAI_USE_VERTEXAI on the
	// machine cannot send an in-process run elsewhere.
	cc := &genai.ClientConfig{APIKey: c.APIKey, Backend: genai.BackendGeminiAPI, HTTPClient: c.HTTPClient}
	cc.HTTPOptions.BaseURL = c.BaseURL
	client, err := genai.NewClient(ctx, cc)
	if err != nil {
		return nil, err
	}
	decls := make([]*genai.FunctionDeclaration, len(tools))
	for i, t := range tools {
		decls[i] = &genai.FunctionDeclaration{Name: t.Name, Description: t.Description, ParametersJsonSchema: t.Schema()}
	}
	return &geminiConv{
		client: client,
		model:  model,
		config: &genai.GenerateContentConfig{
			SystemInstruction: &genai.Content{Parts: []*genai.Part{{Text: System}}},
			Tools:             []*genai.Tool{{FunctionDeclarations: decls}},
			MaxOutputTokens:   1024,
		},
		contents: []*genai.Content{genai.NewContentFromText(c.Prompt, genai.RoleUser)},
		stream:   c.Stream,
	}, nil
}

func (a *geminiConv) send(ctx context.Context) (turn, error) {
	var parts []*genai.Part
	if a.stream {
		for resp, err := range a.client.Models.GenerateContentStream(ctx, a.model, a.contents, a.config) {
			if err != nil {
				return turn{}, fmt.Errorf("streamGenerateContent: %w", err)
			}
			parts = appendParts(parts, resp)
		}
	} else {
		resp, err := a.client.Models.GenerateContent(ctx, a.model, a.contents, a.config)
		if err != nil {
			return turn{}, fmt.Errorf("generateContent: %w", err)
		}
		parts = appendParts(parts, resp)
	}
	if len(parts) == 0 {
		return turn{}, errors.New("the response has no candidate content")
	}
	a.contents = append(a.contents, &genai.Content{Role: genai.RoleModel, Parts: parts})
	var t turn
	for _, p := range parts {
		switch {
		case p.FunctionCall != nil:
			args, err := json.Marshal(p.FunctionCall.Args)
			if err != nil {
				return turn{}, fmt.Errorf("arguments of %s: %w", p.FunctionCall.Name, err)
			}
			t.Calls = append(t.Calls, toolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: args})
		case p.Text != "" && !p.Thought:
			t.Text += p.Text
		}
	}
	return t, nil
}

// appendParts appends the first candidate's parts of one response (or
// stream chunk), joining text that a stream splits across chunks into one
// part, as the model wrote it.
func appendParts(parts []*genai.Part, resp *genai.GenerateContentResponse) []*genai.Part {
	if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
		return parts
	}
	for _, p := range resp.Candidates[0].Content.Parts {
		if n := len(parts); n > 0 && p.Text != "" && isPlainText(p) && isPlainText(parts[n-1]) {
			joined := *parts[n-1]
			joined.Text += p.Text
			parts[n-1] = &joined
			continue
		}
		parts = append(parts, p)
	}
	return parts
}

// isPlainText reports whether a part is text and nothing else.
func isPlainText(p *genai.Part) bool {
	return p.Text != "" && !p.Thought && p.FunctionCall == nil && p.FunctionResponse == nil && p.InlineData == nil
}

func (a *geminiConv) addResults(rs []toolResult) {
	parts := make([]*genai.Part, len(rs))
	for i, r := range rs {
		key := "output"
		if r.IsError {
			key = "error" // the key the API documents for a failed call
		}
		parts[i] = &genai.Part{FunctionResponse: &genai.FunctionResponse{
			ID: r.Call.ID, Name: r.Call.Name, Response: map[string]any{key: r.Output}}}
	}
	a.contents = append(a.contents, &genai.Content{Role: genai.RoleUser, Parts: parts})
}
