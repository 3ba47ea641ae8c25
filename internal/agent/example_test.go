package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
)

func ExampleAgent_RunTurn() {
	// A scripted model: one tool call, then an answer.
	model := agent.NewScripted(
		agent.Reply{ToolCalls: []agent.ToolCall{{ID: "c1", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)}}},
		agent.Reply{Text: "Two files."},
	)
	model.SetResult("c1", agent.ToolResult{Output: "a.go\nb.go"})

	a, err := agent.New(agent.Config{
		Persona:   "You are a careful coding agent.",
		Model:     "m-1",
		ToolOrder: assembler.NewToolOrder("list_dir", assembler.RestEntry),
	}, agent.Options{Adapter: model})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = a.Service().AddProvider("fs",
		assembler.Tool{Name: "read_file", Description: "Read a file."},
		assembler.Tool{Name: "list_dir", Description: "List a directory."},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := a.RunTurn(context.Background(), "List the files."); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(a.Log().Bytes()))

	// Every request the model received is rebuilt from the log alone.
	fmt.Println(agent.CheckRebuild(a.Log().Bytes(), model.Requests()))
	// Output:
	// {"type":"turn/start","data":{"turn":1}}
	// {"type":"user/message","data":{"turn":1,"content":"List the files."}}
	// {"type":"step/start","data":{"turn":1,"step":1}}
	// {"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{"model":"m-1"},"system":"You are a careful coding agent.","tools":[{"name":"list_dir","description":"List a directory."},{"name":"read_file","description":"Read a file."}]}}}
	// {"type":"assistant/message","data":{"turn":1,"step":1,"toolCalls":[{"id":"c1","name":"list_dir","arguments":{"path":"."}}]}}
	// {"type":"tool/result","data":{"turn":1,"step":1,"callId":"c1","name":"list_dir","output":"a.go\nb.go"}}
	// {"type":"step/end","data":{"turn":1,"step":1}}
	// {"type":"step/start","data":{"turn":1,"step":2}}
	// {"type":"assistant/message","data":{"turn":1,"step":2,"text":"Two files."}}
	// {"type":"step/end","data":{"turn":1,"step":2}}
	// {"type":"turn/end","data":{"turn":1,"reason":"completed"}}
	// <nil>
}
