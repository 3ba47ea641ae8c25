package harness

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// shape describes which members a fixture object may have, so an unknown or
// misspelled field is reported with its position instead of ignored.
type shape struct {
	fields map[string]*shape // object with these members
	elem   *shape            // array of these
	dict   *shape            // object with free keys, values of this shape
}

// anything accepts any JSON value (tool parameters, call arguments).
var anything = &shape{}

func object(fields map[string]*shape) *shape { return &shape{fields: fields} }
func arrayOf(s *shape) *shape                { return &shape{elem: s} }

// fixtureShape is the fixture format of SPEC §3. Scalars are left to the
// typed decoder, which reports their type errors with an offset.
var fixtureShape = func() *shape {
	tool := object(map[string]*shape{"name": anything, "description": anything, "parameters": anything,
		"dependsOn": anything, "idempotent": anything})
	section := object(map[string]*shape{"id": anything, "order": anything, "text": anything})
	call := object(map[string]*shape{"id": anything, "name": anything, "arguments": anything})
	result := &shape{fields: map[string]*shape{"output": anything, "error": anything}}
	return object(map[string]*shape{
		"description": anything,
		"pin":         anything,
		"extends":     anything,
		"config":      object(map[string]*shape{"persona": anything, "model": anything, "toolOrder": anything, "dependencyPolicy": anything}),
		"sections":    arrayOf(section),
		"plugins": arrayOf(object(map[string]*shape{
			"name":       anything,
			"registerAt": object(map[string]*shape{"turn": anything, "step": anything}),
			"tools":      arrayOf(tool),
		})),
		"listeners": arrayOf(object(map[string]*shape{"op": anything, "registerAt": object(map[string]*shape{"turn": anything, "step": anything}), "tool": anything, "schema": tool, "at": anything, "section": section})),
		"turns": arrayOf(object(map[string]*shape{
			"user":        anything,
			"replies":     arrayOf(object(map[string]*shape{"text": anything, "toolCalls": arrayOf(call)})),
			"toolResults": &shape{dict: result},
			"resume":      anything,
		})),
		"agent":  object(map[string]*shape{"exec": anything, "dir": anything, "env": &shape{dict: anything}, "timeout": anything}),
		"runs":   anything,
		"redact": arrayOf(object(map[string]*shape{"path": anything, "regex": anything, "with": anything})),
		"replies": arrayOf(object(map[string]*shape{"text": anything, "toolCalls": arrayOf(call),
			"recorded": object(map[string]*shape{"status": anything, "contentType": anything, "body": anything})})),
	})
}()

type shapeError struct {
	path, msg string
	offset    int // of the offending key or value; -1 to locate by path
}

// checkShape walks v against s and returns the first unknown or duplicated
// member, or a container of the wrong kind, in document order.
func checkShape(v gjson.Result, s *shape, path string) *shapeError {
	switch {
	case s == anything:
		return nil
	case s.fields != nil || s.dict != nil:
		if v.Type == gjson.Null {
			return nil
		}
		if !v.IsObject() {
			if s.fields != nil && s.fields["output"] != nil {
				if v.Type == gjson.String {
					return nil // a tool result may be a plain string
				}
				return &shapeError{path, `expected a string or {"output": …, "error": …}`, -1}
			}
			return &shapeError{path, "expected a JSON object", -1}
		}
		var err *shapeError
		seen := map[string]bool{}
		v.ForEach(func(k, val gjson.Result) bool {
			key := k.String()
			p := joinPath(path, key)
			if seen[key] {
				err = &shapeError{p, fmt.Sprintf("field %q appears twice", key), k.Index}
				return false
			}
			seen[key] = true
			sub := s.dict
			if s.fields != nil {
				if sub = s.fields[key]; sub == nil {
					err = &shapeError{p, fmt.Sprintf("unknown field %q (known: %s)", key, knownFields(s)), k.Index}
					return false
				}
			}
			err = checkShape(val, sub, p)
			return err == nil
		})
		return err
	case s.elem != nil:
		if v.Type == gjson.Null {
			return nil
		}
		if !v.IsArray() {
			return &shapeError{path, "expected a JSON array", -1}
		}
		var err *shapeError
		i := 0
		v.ForEach(func(_, val gjson.Result) bool {
			err = checkShape(val, s.elem, fmt.Sprintf("%s[%d]", path, i))
			i++
			return err == nil
		})
		return err
	}
	return nil
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
