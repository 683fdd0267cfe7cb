package load

import (
	"strconv"
	"unicode/utf8"
)

// body is the request's JSON, written field by field: encoding/json's
// reflection cost tens of microseconds a request, a share of the
// client's CPU that grows with the rate. The bytes are those
// json.Marshal gives for the same request (FuzzBody checks): model,
// stream, max_tokens and its current OpenAI name max_completion_tokens
// (servers that know only one read that one), temperature 0,
// stream_options.include_usage, ignore_eos (a vLLM/SGLang/llama.cpp
// extension that makes the server produce exactly max_tokens) when
// set, then the prompt or the messages.
func (c *client) body(p Prompt) []byte {
	size := 200 + len(c.t.Model) + len(p.Text) + 8*len(p.TokenIDs)
	for _, m := range p.Messages {
		size += 32 + len(m.Role) + len(m.Content)
	}
	b := make([]byte, 0, size)
	b = append(b, `{"model":`...)
	b = appendJSONString(b, c.t.Model)
	b = append(b, `,"stream":true,"max_tokens":`...)
	b = strconv.AppendInt(b, int64(p.MaxTokens), 10)
	b = append(b, `,"max_completion_tokens":`...)
	b = strconv.AppendInt(b, int64(p.MaxTokens), 10)
	b = append(b, `,"temperature":0,"stream_options":{"include_usage":true}`...)
	if c.l.IgnoreEOS {
		b = append(b, `,"ignore_eos":true`...)
	}
	switch {
	case c.t.API == "completions" && p.TokenIDs != nil:
		b = append(b, `,"prompt":[`...)
		for i, id := range p.TokenIDs {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(id), 10)
		}
		b = append(b, ']')
	case c.t.API == "completions":
		b = append(b, `,"prompt":`...)
		b = appendJSONString(b, p.Text)
	case p.Messages != nil:
		b = appendMessages(b, p.Messages)
	default:
		b = appendMessages(b, []Message{{Role: "user", Content: p.Text}})
	}
	return append(b, '}')
}

func appendMessages(b []byte, ms []Message) []byte {
	if len(ms) == 0 {
		return b // omitted, as omitempty omits an empty list
	}
	b = append(b, `,"messages":[`...)
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role":`...)
		b = appendJSONString(b, m.Role)
		b = append(b, `,"content":`...)
		b = appendJSONString(b, m.Content)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendJSONString quotes s as encoding/json does by default: HTML
// characters, control characters, U+2028 and U+2029 escaped, invalid
// UTF-8 replaced by U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += n
			continue
		}
		i += n
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
