package redact

import (
	"regexp"
	"testing"

	"github.com/headergold/headergold/internal/wire"
)

func TestInReplies(t *testing.T) {
	reqs := []Request{{Format: wire.Anthropic, Body: []byte(`{"model":"m","max_tokens":1,"metadata":{"user_id":"u-17\"x","org":"ab"},"messages":[]}`)}}
	path := Rule{Path: "config.metadata.user_id", With: "<<u>>"}
	short := Rule{Path: "config.metadata.org", With: "<<o>>"}
	re := Rule{Regex: regexp.MustCompile(`/tmp/run-[0-9]+`), With: "<<tmp>>"}
	for _, c := range []struct {
		name        string
		rules       []Rule
		replies     []string
		rule, reply int
		ok          bool
	}{
		{"regex in the second reply", []Rule{re}, []string{`{"text":"hi"}`, `data: {"path":"/tmp/run-42"}`}, 0, 1, true},
		{"path value as JSON writes it", []Rule{re, path}, []string{`{"echo":"u-17\"x"}`}, 1, 0, true},
		{"path value as it reads", []Rule{path}, []string{`id u-17"x`}, 0, 0, true},
		{"a value of under four bytes is not looked for", []Rule{short}, []string{`{"org":"ab"}`}, 0, 0, false},
		{"nothing", []Rule{re, path}, []string{`{"text":"Oslo"}`, ``}, 0, 0, false},
	} {
		var replies [][]byte
		for _, r := range c.replies {
			replies = append(replies, []byte(r))
		}
		rule, reply, ok := InReplies(reqs, replies, c.rules)
		if ok != c.ok || ok && (rule != c.rule || reply != c.reply) {
			t.Errorf("%s: rule %d, reply %d, %v; want %d, %d, %v", c.name, rule, reply, ok, c.rule, c.reply, c.ok)
		}
	}
}
