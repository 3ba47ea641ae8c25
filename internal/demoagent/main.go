// Command demoagent is a small agent on the Anthropic Messages API, spoken
// over plain net/http: it sends a prompt with its tools, runs the tools
// the model calls and sends their results back until the model answers
// with text. The bundled captured scenarios run it as a subprocess
// against headergold's fake provider, so that `go run ./cmd/replay`
// replays a real agent on a machine with nothing but Go.
//
// Usage:
//
//	demoagent -prompt TEXT [-tools-from-map]
//
// It reads ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY. -tools-from-map
// lists the tools in Go map order, the bug the repeat pass is for.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"
)

// tool is a tool the agent offers, with its implementation.
type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	run         func(args map[string]any) string
}

// toolbox returns the agent's tools by name.
func toolbox() map[string]tool {
	return map[string]tool{
		"get_weather": {Name: "get_weather", Description: "Current weather for a city.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
			run: func(a map[string]any) string {
				return fmt.Sprintf("%v: 12 °C, clear", a["city"])
			}},
		"get_time": {Name: "get_time", Description: "Local time in a city.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
			run: func(a map[string]any) string {
				return fmt.Sprintf("%v: 14:05", a["city"])
			}},
		"convert_units": {Name: "convert_units", Description: "Convert a temperature between °C and °F.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"value":{"type":"number"},"to":{"type":"string","enum":["C","F"]}}}`),
			run: func(a map[string]any) string {
				v, _ := a["value"].(float64)
				if a["to"] == "F" {
					return fmt.Sprintf("%g °F", v*9/5+32)
				}
				return fmt.Sprintf("%g °C", (v-32)*5/9)
			}},
		"search_news": {Name: "search_news", Description: "Headlines about a topic.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"topic":{"type":"string"}}}`),
			run: func(a map[string]any) string {
				return fmt.Sprintf("No news about %v.", a["topic"])
			}},
		"remember": {Name: "remember", Description: "Keep a note for later turns.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}}}`),
			run:         func(map[string]any) string { return "noted" }},
	}
}

// content is a content block of a message.
type content struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}

type message struct {
	Role    string    `json:"role"`
	Content []content `json:"content"`
}

type request struct {
	Model     string    `json:"model"`
	MaxTokens int       `json:"max_tokens"`
	System    string    `json:"system"`
	Tools     []tool    `json:"tools"`
	Messages  []message `json:"messages"`
}

type response struct {
	Content    []content `json:"content"`
	StopReason string    `json:"stop_reason"`
}

const system = "You are a weather assistant. Use the tools; answer in one sentence."

func main() {
	prompt := flag.String("prompt", "", "the user's question")
	fromMap := flag.Bool("tools-from-map", false, "list tools in map order (nondeterministic)")
	flag.Parse()
	if *prompt == "" {
		fmt.Fprintln(os.Stderr, "demoagent: -prompt is required")
		os.Exit(2)
	}
	answer, err := run(os.Getenv("ANTHROPIC_BASE_URL"), os.Getenv("ANTHROPIC_API_KEY"), *prompt, *fromMap)
	if err != nil {
		fmt.Fprintln(os.Stderr, "demoagent:", err)
		os.Exit(1)
	}
	fmt.Println(answer)
}

// run is the agent loop.
func run(baseURL, key, prompt string, fromMap bool) (string, error) {
	if baseURL == "" {
		return "", errors.New("ANTHROPIC_BASE_URL is not set")
	}
	box := toolbox()
	var tools []tool
	for _, t := range box {
		tools = append(tools, t)
	}
	if !fromMap {
		sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	}
	req := request{Model: "claude-sonnet-4-5", MaxTokens: 1024, System: system, Tools: tools,
		Messages: []message{{Role: "user", Content: []content{{Type: "text", Text: prompt}}}}}
	client := &http.Client{Timeout: 30 * time.Second}
	for step := 1; step <= 10; step++ {
		resp, err := send(client, strings.TrimRight(baseURL, "/")+"/v1/messages", key, req)
		if err != nil {
			return "", fmt.Errorf("step %d: %w", step, err)
		}
		req.Messages = append(req.Messages, message{Role: "assistant", Content: resp.Content})
		if resp.StopReason != "tool_use" {
			var text []string
			for _, c := range resp.Content {
				if c.Type == "text" {
					text = append(text, c.Text)
				}
			}
			return strings.Join(text, ""), nil
		}
		var results []content
		for _, c := range resp.Content {
			if c.Type != "tool_use" {
				continue
			}
			out := "unknown tool " + c.Name
			if t, ok := box[c.Name]; ok {
				var args map[string]any
				if err := json.Unmarshal(c.Input, &args); err != nil {
					return "", fmt.Errorf("step %d: arguments of %s: %w", step, c.ID, err)
				}
				out = t.run(args)
			}
			results = append(results, content{Type: "tool_result", ToolUseID: c.ID, Content: out})
		}
		req.Messages = append(req.Messages, message{Role: "user", Content: results})
	}
	return "", errors.New("no answer after 10 steps")
}

// send posts one request and decodes the reply.
func send(client *http.Client, url, key string, req request) (*response, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	hr, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("content-type", "application/json")
	hr.Header.Set("x-api-key", key)
	hr.Header.Set("anthropic-version", "2023-06-01")
	res, err := client.Do(hr)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", res.StatusCode, data)
	}
	var out response
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("decoding the reply: %w", err)
	}
	return &out, nil
}
