package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Greedy decodes each prompt greedily (temperature 0), one request at a
// time so batching cannot change the numerics, and returns the first
// tokens texts of the answers. Two configurations of one model that
// answer a prompt with the same text agree on it; the quality guard
// compares these texts between an incumbent and a variant.
func Greedy(ctx context.Context, t Target, prompts Prompts, tokens int) ([]string, error) {
	c := t.Client(2 * time.Minute)
	defer c.CloseIdleConnections()
	path := "/v1/chat/completions"
	if t.API == "completions" {
		path = "/v1/completions"
	}
	url := strings.TrimRight(t.URL, "/") + path
	out := make([]string, prompts.Len())
	for i := range out {
		p := prompts.At(i)
		req := map[string]any{"model": t.Model, "max_tokens": tokens, "temperature": 0, "ignore_eos": true, "stream": false}
		switch {
		case t.API == "completions" && p.TokenIDs != nil:
			req["prompt"] = p.TokenIDs
		case t.API == "completions":
			req["prompt"] = p.Text
		default:
			req["messages"] = []map[string]string{{"role": "user", "content": p.Text}}
		}
		text, err := greedyOne(ctx, c, url, req)
		if err != nil {
			return nil, fmt.Errorf("greedy prompt %d: %w", i, err)
		}
		out[i] = text
	}
	return out, nil
}

func greedyOne(ctx context.Context, c *http.Client, url string, req map[string]any) (string, error) {
	body, _ := json.Marshal(req)
	hr, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Idempotency-Key", "greedy")
	resp, err := c.Do(hr)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, b)
	}
	var r struct {
		Choices []struct {
			Text    string `json:"text"`
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(b, &r); err != nil || len(r.Choices) == 0 {
		return "", fmt.Errorf("not a completion: %.200s", b)
	}
	return r.Choices[0].Text + r.Choices[0].Message.Content, nil
}
