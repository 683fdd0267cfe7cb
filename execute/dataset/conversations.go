package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"servelab.dev/execute/load"
)

// Turn is one exchange of a conversation: what the user says and the
// reply the file gives.
type Turn struct{ User, Reply string }

// Conversation is a multi-turn conversation from a file: an optional
// system prompt and its turns.
type Conversation struct {
	ID     string
	System string
	Turns  []Turn
}

// convHelp is the fix every conversation-file error names.
const convHelp = `want a JSON array of {"id": "…", "conversations": [{"from": "human", "value": "…"}, {"from": "gpt", "value": "…"}, …]}, turns alternating user and assistant ("role"/"content" also read)`

// ParseConversations reads a ShareGPT-layout file of multi-turn
// conversations; name is the file's name for errors, each of which
// names the line. Roles are human/user, gpt/assistant/chatgpt and
// system (first only); a trailing user turn without a reply is dropped,
// and conversations left without a turn are skipped.
func ParseConversations(data []byte, name string) ([]Conversation, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	fail := func(off int64, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s (%s)", name, lineAt(data, off), fmt.Sprintf(format, args...), convHelp)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, fail(syntaxOffset(data, 0), "not a JSON array%s", jsonErr(err))
	}
	var out []Conversation
	for entry := 1; dec.More(); entry++ {
		off := dec.InputOffset()
		var raw struct {
			ID            json.RawMessage `json:"id"`
			Conversations []struct {
				From, Role     string
				Value, Content *string
			} `json:"conversations"`
		}
		if err := dec.Decode(&raw); err != nil {
			return nil, fail(syntaxOffset(data, off), "entry %d: not a conversation%s", entry, jsonErr(err))
		}
		c := Conversation{ID: strings.Trim(string(raw.ID), `"`)}
		user, pos := "", 0
		for k, m := range raw.Conversations {
			role, text := strings.ToLower(m.From+m.Role), m.Value
			if text == nil {
				text = m.Content
			}
			if text == nil {
				return nil, fail(off, "conversation %q, message %d: no value or content", c.ID, k+1)
			}
			want := "user"
			if pos%2 == 1 {
				want = "assistant"
			}
			switch got := roleOf(role); {
			case got == "system" && k == 0:
				c.System = *text
				continue
			case got == "":
				return nil, fail(off, "conversation %q, message %d: unknown role %q", c.ID, k+1, role)
			case got != want:
				return nil, fail(off, "conversation %q, message %d: a %s message where a %s one was due", c.ID, k+1, got, want)
			case got == "user":
				user = *text
			default:
				c.Turns = append(c.Turns, Turn{User: user, Reply: *text})
			}
			pos++
		}
		if len(c.Turns) > 0 {
			out = append(out, c)
		}
	}
	if _, err := dec.Token(); err != nil && !errors.Is(err, io.EOF) {
		return nil, fail(syntaxOffset(data, dec.InputOffset()), "after the last entry%s", jsonErr(err))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no conversation with a user turn and its reply (%s)", name, convHelp)
	}
	return out, nil
}

func roleOf(r string) string {
	switch r {
	case "human", "user":
		return "user"
	case "gpt", "assistant", "chatgpt", "bard", "bing":
		return "assistant"
	case "system":
		return "system"
	}
	return ""
}

func jsonErr(err error) string {
	if err == nil {
		return ""
	}
	return ": " + err.Error()
}

// syntaxOffset is where the file's first syntax error is, else off:
// the decoder's own offsets are relative to its buffer, a whole-file
// parse's are not.
func syntaxOffset(data []byte, off int64) int64 {
	var v any
	var se *json.SyntaxError
	if err := json.Unmarshal(data, &v); errors.As(err, &se) {
		return se.Offset - 1
	}
	return off
}

// lineAt is the 1-based line of byte offset off, skipping the
// whitespace before the value that starts there.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	for off < int64(len(data)) && strings.ContainsRune(" \t\r\n,", rune(data[off])) {
		off++
	}
	return 1 + bytes.Count(data[:min(off, int64(len(data)))], []byte("\n"))
}

// ConversationPrompts turns conversations into each turn's request, in
// an order shuffled by seed: the messages so far (the file's own
// replies as history, so every run sends the same prompts whatever the
// engine answered) and the turn's reply length, by tok, as its output
// budget (at most maxOut tokens). maxTurns > 0 keeps only the first
// turns of each conversation.
func ConversationPrompts(convs []Conversation, maxTurns, maxOut int, seed uint64, tok Tokenizer) ([][]load.Prompt, bool, error) {
	estimated := tok == nil
	if estimated {
		tok = estimate
	}
	order := rand.New(rand.NewPCG(seed, 0xc0de)).Perm(len(convs))
	out := make([][]load.Prompt, 0, len(convs))
	for _, k := range order {
		c := convs[k]
		var msgs []load.Message
		if c.System != "" {
			msgs = append(msgs, load.Message{Role: "system", Content: c.System})
		}
		var turns []load.Prompt
		for t, tr := range c.Turns {
			if maxTurns > 0 && t == maxTurns {
				break
			}
			msgs = append(msgs, load.Message{Role: "user", Content: tr.User})
			n, err := tok(tr.Reply)
			if err != nil {
				return nil, false, err
			}
			turns = append(turns, load.Prompt{Messages: msgs[:len(msgs):len(msgs)], MaxTokens: min(max(n, 1), maxOut)})
			msgs = append(msgs, load.Message{Role: "assistant", Content: tr.Reply})
		}
		out = append(out, turns)
	}
	return out, estimated, nil
}
