package dataset

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"servelab.dev/execute/load"
)

const (
	traceSample = "../../studies/examples/testdata/mooncake-sample.jsonl"
	convSample  = "../../studies/examples/testdata/conversations-sample.json"
)

func readTrace(t *testing.T) []TraceRow {
	t.Helper()
	f, err := os.Open(traceSample)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := ParseTrace(f, "mooncake-sample.jsonl", 512)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// Equal hash ids are equal prompt blocks, in every row and only there;
// lengths and output budgets are the rows'.
func TestTracePrompts(t *testing.T) {
	rows := readTrace(t)
	if len(rows) != 160 {
		t.Fatalf("%d rows, want 160", len(rows))
	}
	ps := TracePrompts(rows, 512, 64, 7)
	block := map[int64][]int{}
	for i, r := range rows {
		p := ps.At(i)
		if len(p.TokenIDs) != r.InputLength || p.MaxTokens != min(r.OutputLength, 64) {
			t.Fatalf("row %d: %d tokens, budget %d; want %d, %d", i, len(p.TokenIDs), p.MaxTokens, r.InputLength, min(r.OutputLength, 64))
		}
		for k, h := range r.HashIDs {
			b := p.TokenIDs[k*512 : min((k+1)*512, len(p.TokenIDs))]
			if prev, ok := block[h]; ok && !slices.Equal(prev[:min(len(prev), len(b))], b[:min(len(prev), len(b))]) {
				t.Fatalf("row %d: hash id %d is not the block it was before", i, h)
			}
			if len(b) > len(block[h]) {
				block[h] = b
			}
		}
	}
	if a, b := block[0], block[2]; slices.Equal(a, b) {
		t.Error("different hash ids made equal blocks")
	}
	if other := TracePrompts(rows, 512, 64, 8).At(0); slices.Equal(other.TokenIDs, ps.At(0).TokenIDs) {
		t.Error("the seed does not change the prompts")
	}
	// The trace shares much of its prompts; vLLM-style 16-token blocks
	// see it (the measure is an upper bound on any cache's hit rate).
	if r := SharedPrefix(ps, 0, len(rows)); r < 0.3 || r > 0.95 {
		t.Errorf("shared prefix ratio %.2f, want the sample's sharing (0.3 to 0.95)", r)
	}
}

func TestTraceOffsets(t *testing.T) {
	rows := []TraceRow{{Timestamp: 1000}, {Timestamp: 1000}, {Timestamp: 1500}, {Timestamp: 4000.5}}
	got := TraceOffsets(rows, 0.5)
	want := []time.Duration{0, 0, 250 * time.Millisecond, 1500250 * time.Microsecond}
	if !slices.Equal(got, want) {
		t.Errorf("offsets %v, want %v", got, want)
	}
}

// Every bad trace gets one line naming the file, the line and the fix.
func TestTraceErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": [1]}\n{\"timestamp\": 5, \"input_length\": 10,", "t.jsonl:2: not a trace row"},
		{"\n\n{\"timestamp\": 0, \"input_length\": 10}", "t.jsonl:3: timestamp, input_length and output_length are required"},
		{`{"timestamp": 9, "input_length": 10, "output_length": 2, "hash_ids": []}` + "\n" + `{"timestamp": 3, "input_length": 10, "output_length": 2, "hash_ids": []}`, "t.jsonl:2: timestamp 3 is before the previous row's 9: sort the rows by timestamp"},
		{`{"timestamp": 0, "input_length": 600, "output_length": 2, "hash_ids": [1, 2, 3]}`, "t.jsonl:1: 3 hash_ids for input_length 600, which holds at most 2 blocks of 512 tokens: set the dataset's blockSize"},
		{`{"timestamp": 0, "input_length": 0, "output_length": 2, "hash_ids": []}`, "t.jsonl:1: input_length 0"},
		{"", "t.jsonl: no rows"},
		{`[1, 2]`, "t.jsonl:1: not a trace row"},
	} {
		_, err := ParseTrace(strings.NewReader(tc.in), "t.jsonl", 512)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line starting %q", tc.in, err, tc.want)
		}
	}
}

func TestConversations(t *testing.T) {
	data, err := os.ReadFile(convSample)
	if err != nil {
		t.Fatal(err)
	}
	convs, err := ParseConversations(data, "conversations-sample.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 16 || convs[0].System == "" || convs[1].System != "" {
		t.Fatalf("%d conversations; the first has a system prompt: %v, the second: %v", len(convs), convs[0].System != "", convs[1].System != "")
	}
	turns, est, err := ConversationPrompts(convs, 3, 100, 1, words)
	if err != nil || est {
		t.Fatal(err, est)
	}
	for _, c := range turns {
		if len(c) == 0 || len(c) > 3 {
			t.Fatalf("%d turns, want 1 to 3", len(c))
		}
		// Each turn carries the whole history: the previous turn's
		// messages, its reply, then the new user message.
		for k := 1; k < len(c); k++ {
			prev, cur := c[k-1].Messages, c[k].Messages
			if len(cur) != len(prev)+2 || !slices.Equal(cur[:len(prev)], prev) || cur[len(prev)].Role != "assistant" || cur[len(cur)-1].Role != "user" {
				t.Fatalf("turn %d does not extend turn %d's history", k, k-1)
			}
		}
		for _, p := range c {
			if p.MaxTokens < 1 || p.MaxTokens > 100 {
				t.Errorf("output budget %d", p.MaxTokens)
			}
		}
	}
	var flat []Prompt
	for _, c := range turns {
		flat = append(flat, c...)
	}
	if r := SharedPrefix(promptList(flat), 0, len(flat)); r < 0.4 {
		t.Errorf("conversations share %.2f of their prompts, want most of the history", r)
	}
}

func TestConversationErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{}", "c.json:1: not a JSON array"},
		{"[\n {\"conversations\": [\n  {\"from\": \"human\", \"value\": \"a\"}, {\"from\": \"human\", \"value\": \"b\"}]}]", `c.json:2: conversation "", message 2: a user message where a assistant one was due`},
		{"[\n{\"id\": \"x\", \"conversations\": [{\"from\": \"robot\", \"value\": \"a\"}]}]", `c.json:2: conversation "x", message 1: unknown role "robot"`},
		{"[\n{\"conversations\": [{\"from\": \"human\", \"value\": \"a\"}]},\n{\"conversations\": 3}]", "c.json:3: entry 2: not a conversation"},
		{"[\n{\"conversations\": [{\"from\": \"human\", \"value\": \"a\"}\n", "c.json:"},
		{"[]", "c.json: no conversation with a user turn and its reply"},
	} {
		_, err := ParseConversations([]byte(tc.in), "c.json")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line starting %q", tc.in, err, tc.want)
		}
	}
}

// Prefix repetition: prefixes shared by the requests that drew them,
// suffixes their own.
func TestPrefixRepetition(t *testing.T) {
	ps := PrefixRepetition(64, 32, 4, 10, 200, 3)
	prefixes := map[string]int{}
	for i := range ps.Len() {
		p := ps.At(i)
		if len(p.TokenIDs) != 96 || p.MaxTokens != 10 {
			t.Fatalf("prompt %d: %d tokens, budget %d", i, len(p.TokenIDs), p.MaxTokens)
		}
		prefixes[strings.Trim(strings.Join(strings.Fields(fmtInts(p.TokenIDs[:64])), ","), "[]")]++
	}
	if len(prefixes) != 4 {
		t.Errorf("%d distinct prefixes, want 4", len(prefixes))
	}
	// 64 of 96 tokens shared by all but the first request of each prefix.
	if r := SharedPrefix(ps, 0, 200); r < 0.6 || r > 2.0/3 {
		t.Errorf("shared prefix ratio %.3f, want just under 2/3", r)
	}
	if r := SharedPrefix(RandomSource(96, 10, 0, 0, 200, 3), 0, 200); r != 0 {
		t.Errorf("random prompts share %.3f, want 0", r)
	}
}

type Prompt = load.Prompt

func promptList(p []Prompt) load.Prompts { return load.List(p) }

func fmtInts(ids []int) string { return fmt.Sprint(ids) }

// On the chat API token ids become words: equal prefixes stay equal,
// and a prompt has one word per id.
func TestAsText(t *testing.T) {
	ps := AsText(PrefixRepetition(32, 16, 1, 4, 3, 9))
	a, b := strings.Fields(ps.At(0).Text), strings.Fields(ps.At(1).Text)
	if len(a) != 48 || ps.At(0).TokenIDs != nil || ps.At(0).InputTokens != 48 {
		t.Fatalf("%d words, ids %v", len(a), ps.At(0).TokenIDs)
	}
	if !slices.Equal(a[:32], b[:32]) || slices.Equal(a[32:], b[32:]) {
		t.Error("the shared prefix is not shared as text, or the suffixes are")
	}
	if r := SharedPrefix(ps, 1, 3); r < 0.4 {
		t.Errorf("shared prefix as text %.2f", r)
	}
}
