package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"servelab.dev/execute/load"
)

// TraceRow is one request of a trace in the Mooncake format (FAST'25):
// when it arrived (ms from the trace's start), its prompt and output
// lengths in tokens, and the ids of its prompt's KV blocks, equal ids
// meaning equal prefixes up to and including that block.
type TraceRow struct {
	Timestamp    float64 `json:"timestamp"`
	InputLength  int     `json:"input_length"`
	OutputLength int     `json:"output_length"`
	HashIDs      []int64 `json:"hash_ids"`
}

// traceHelp is the fix every trace error names.
const traceHelp = `each line one JSON object {"timestamp": ms, "input_length": tokens, "output_length": tokens, "hash_ids": [ids]}, in time order`

// maxTraceLine bounds one line: a row of a million-token prompt's block
// ids in 512-token blocks is some 20 KiB.
const maxTraceLine = 4 << 20

// ParseTrace reads a Mooncake JSONL trace; name is the file's name for
// errors, each of which names the line and the fix. block is the
// tokens per hash id: a row cannot have more ids than its prompt has
// blocks. Blank lines are skipped; fields beyond the four are ignored.
func ParseTrace(r io.Reader, name string, block int) ([]TraceRow, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxTraceLine)
	var rows []TraceRow
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		row, err := traceRow(b, block)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v (%s)", name, line, err, traceHelp)
		}
		if n := len(rows); n > 0 && row.Timestamp < rows[n-1].Timestamp {
			return nil, fmt.Errorf("%s:%d: timestamp %v is before the previous row's %v: sort the rows by timestamp", name, line, row.Timestamp, rows[n-1].Timestamp)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, fmt.Errorf("%s:%d: line longer than %d MiB: not a Mooncake trace (%s)", name, len(rows)+1, maxTraceLine>>20, traceHelp)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no rows (%s)", name, traceHelp)
	}
	return rows, nil
}

func traceRow(b []byte, block int) (TraceRow, error) {
	var raw struct {
		Timestamp    *float64 `json:"timestamp"`
		InputLength  *int     `json:"input_length"`
		OutputLength *int     `json:"output_length"`
		HashIDs      []int64  `json:"hash_ids"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return TraceRow{}, fmt.Errorf("not a trace row: %w", err)
	}
	switch {
	case raw.Timestamp == nil || raw.InputLength == nil || raw.OutputLength == nil:
		return TraceRow{}, fmt.Errorf("timestamp, input_length and output_length are required")
	case !(*raw.Timestamp >= 0 && *raw.Timestamp < 1e12):
		return TraceRow{}, fmt.Errorf("timestamp %v: want milliseconds from 0 to 10¹²", *raw.Timestamp)
	case *raw.InputLength < 1 || *raw.InputLength > 1<<20:
		return TraceRow{}, fmt.Errorf("input_length %d: want 1 to %d tokens", *raw.InputLength, 1<<20)
	case *raw.OutputLength < 1 || *raw.OutputLength > 1<<20:
		return TraceRow{}, fmt.Errorf("output_length %d: want 1 to %d tokens", *raw.OutputLength, 1<<20)
	}
	if most := (*raw.InputLength + block - 1) / block; len(raw.HashIDs) > most {
		return TraceRow{}, fmt.Errorf("%d hash_ids for input_length %d, which holds at most %d blocks of %d tokens: set the dataset's blockSize to the trace's", len(raw.HashIDs), *raw.InputLength, most, block)
	}
	return TraceRow{Timestamp: *raw.Timestamp, InputLength: *raw.InputLength, OutputLength: *raw.OutputLength, HashIDs: raw.HashIDs}, nil
}

// TraceOffsets are when rows are due, from the first of them, with the
// trace's time multiplied by scale (0.5 replays twice as fast).
func TraceOffsets(rows []TraceRow, scale float64) []time.Duration {
	out := make([]time.Duration, len(rows))
	for i, r := range rows {
		out[i] = time.Duration(math.Round((r.Timestamp - rows[0].Timestamp) * scale * float64(time.Millisecond)))
	}
	return out
}

// TracePrompts makes each row's prompt as token ids, lazily: block k of
// the prompt is the tokens of hash id k (drawn from seed and the id, so
// equal ids are equal blocks in every row), the last block cut to the
// row's length; tokens past its blocks are the row's own. The output
// budget is the row's, at most maxOut.
func TracePrompts(rows []TraceRow, block, maxOut int, seed uint64) load.Prompts {
	return &traceSource{rows: rows, block: block, maxOut: maxOut, seed: seed}
}

type traceSource struct {
	rows          []TraceRow
	block, maxOut int
	seed          uint64
}

func (s *traceSource) Len() int { return len(s.rows) }

func (s *traceSource) At(i int) load.Prompt {
	r := s.rows[i]
	ids := make([]int, 0, r.InputLength)
	for _, h := range r.HashIDs {
		rng := rand.New(rand.NewPCG(s.seed, 0xb10c^uint64(h)*0x9e3779b97f4a7c15))
		for k := 0; k < s.block && len(ids) < r.InputLength; k++ {
			ids = append(ids, 100+rng.IntN(20000))
		}
	}
	rng := rand.New(rand.NewPCG(s.seed, 0x0e1f^uint64(i+1)*0xbf58476d1ce4e5b9))
	for len(ids) < r.InputLength {
		ids = append(ids, 100+rng.IntN(20000))
	}
	return load.Prompt{TokenIDs: ids, MaxTokens: min(r.OutputLength, s.maxOut), InputTokens: len(ids)}
}
