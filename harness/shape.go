package harness

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// shape describes the JSON a fixture member may hold, so an unknown or
// misspelled field, a duplicated key or a value of the wrong type is
// reported at its own position, with its path, before the typed decoder
// runs (see [checkFixture]).
type shape struct {
	kind   kind
	fields map[string]*shape // kindObject: the members it may have
	elem   *shape            // kindArray, kindDict: the elements' shape
	// nullable accepts null, read as absent. Without it, null is an
	// error for every kind but kindAny, objects and arrays included: an
	// absent member is left out. Only config.toolOrder has it, since
	// SPEC §1 makes its null absent.
	nullable bool
	// orString accepts a plain string in place of the object (a tool
	// result).
	orString bool
	// check validates a string's decoded value (durations).
	check func(string) error
	// hint is the error for a value of the wrong type, when the plain
	// "expected ..." would not say enough.
	hint string
	// slot names an array the decoder fills a slice from; checkFixture
	// counts its elements so the slice is allocated once (see presize).
	slot string
}

// kind is what a shape accepts.
type kind uint8

const (
	kindAny       kind = iota // any JSON value
	kindAnyObject             // a JSON object of any content (tool parameters, call arguments)
	kindObject                // an object with the members in fields
	kindDict                  // an object with free keys, values of elem
	kindArray                 // an array of elem
	kindString
	kindBool
	kindInt
)

// anything accepts any JSON value; duplicate keys inside it are still
// errors.
var anything = &shape{kind: kindAny}

func object(fields map[string]*shape) *shape { return &shape{kind: kindObject, fields: fields} }
func arrayOf(s *shape) *shape                { return &shape{kind: kindArray, elem: s} }

// slice is an array whose elements the decoder appends to the slice slot.
func slice(slot string, s *shape) *shape { return &shape{kind: kindArray, elem: s, slot: slot} }
func dictOf(s *shape) *shape             { return &shape{kind: kindDict, elem: s} }

var (
	str        = &shape{kind: kindString}
	boolean    = &shape{kind: kindBool}
	integer    = &shape{kind: kindInt}
	stringList = arrayOf(str)
)

// fixtureShape is the fixture format of SPEC §3 and §6, with the type of
// every member the typed decoder reads.
var fixtureShape = func() *shape {
	tool := object(map[string]*shape{"name": str, "description": str,
		"parameters": {kind: kindAnyObject, hint: "parameters must be a JSON object (a JSON Schema); leave it out for a tool without parameters"},
		"dependsOn":  stringList, "idempotent": boolean})
	section := object(map[string]*shape{"id": str, "order": integer, "text": str})
	call := object(map[string]*shape{"id": str, "name": str,
		"arguments": {kind: kindAnyObject, hint: "arguments must be a JSON object"}})
	result := &shape{kind: kindObject, orString: true, fields: map[string]*shape{"output": str, "error": boolean}}
	step := object(map[string]*shape{"turn": integer, "step": integer})
	// A captured scenario's reply may hold what a record -upstream kept of
	// the real response; its calls' arguments are then the provider's, not
	// always an object (validateCaptured checks the others).
	capturedCall := object(map[string]*shape{"id": str, "name": str, "arguments": anything})
	capturedReply := object(map[string]*shape{"text": str, "toolCalls": slice("replies.toolCalls", capturedCall),
		"recorded": object(map[string]*shape{"status": integer, "contentType": str, "body": str})})
	duration := &shape{kind: kindString, check: func(s string) error {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: %w", s, err)
		}
		if v <= 0 {
			return fmt.Errorf("duration %q: want more than 0", s)
		}
		return nil
	}}
	return object(map[string]*shape{
		"description": str,
		"pin":         boolean,
		"extends":     str,
		"config": object(map[string]*shape{"persona": str, "model": str,
			"toolOrder": {kind: kindArray, elem: str, nullable: true}, "dependencyPolicy": str}),
		"sections": slice("sections", section),
		"plugins": slice("plugins", object(map[string]*shape{
			"name":       str,
			"registerAt": step,
			"tools":      slice("plugins.tools", tool),
		})),
		"listeners": slice("listeners", object(map[string]*shape{"op": str, "registerAt": step, "tool": str,
			"schema": tool, "at": integer, "section": section})),
		"turns": slice("turns", object(map[string]*shape{
			"user": str,
			"replies": slice("turns.replies", object(map[string]*shape{"text": str,
				"toolCalls": slice("turns.replies.toolCalls", call)})),
			"toolResults": dictOf(result),
			"resume":      boolean,
		})),
		"agent": object(map[string]*shape{"exec": stringList, "dir": str, "env": dictOf(str),
			"timeout": duration}),
		"runs":    integer,
		"redact":  arrayOf(object(map[string]*shape{"path": str, "regex": str, "with": str})),
		"replies": slice("replies", capturedReply),
	})
}()

// shapeError is the first problem [checkFixture] found.
type shapeError struct {
	path, msg string
	offset    int  // of the offending key or value
	syntax    bool // the text is not JSON at all
}

// expected names what a shape accepts, for messages.
func (s *shape) expected() string {
	switch s.kind {
	case kindString:
		return "string"
	case kindBool:
		return "bool"
	case kindInt:
		return "int"
	case kindArray:
		return "a JSON array"
	case kindObject, kindDict, kindAnyObject:
		if s.orString {
			return `a string or {"output": …, "error": …}`
		}
		return "a JSON object"
	}
	return "a JSON value"
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func knownFields(s *shape) string {
	names := make([]string, 0, len(s.fields))
	for k := range s.fields {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
