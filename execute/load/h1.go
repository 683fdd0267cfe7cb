package load

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// h1 decodes one HTTP/1.1 response carrying a server-sent event stream
// as its bytes arrive, in pieces of any size: the status line and
// headers, then the body's framing (chunked, Content-Length or to the
// connection's end), then the SSE lines, handing each data event to a
// sink. It keeps no more than a partial line between pieces: lines that
// lie whole in a piece are parsed where they are, so the bytes are not
// copied and nothing is allocated per event. It is the epoll reader's
// parser, kept free of I/O so that it can be fuzzed.
type h1 struct {
	state   int
	status  int
	ctype   string
	chunked bool
	length  int64  // body bytes left with a Content-Length, -1 without
	close   bool   // the server closes the connection after the response
	left    int64  // data bytes left in the current chunk
	hdr     int    // header bytes so far
	frame   []byte // a partial header or chunk-size line
	cr      bool   // the CR after a chunk's data was read
	line    []byte // a partial SSE line
	errBody []byte // the start of a refused response's body
	ended   bool   // the response ended; the connection may carry another
	s       sink   // where events go; nil once the outcome is known
}

const (
	hStatus = iota
	hHeader
	hChunkSize
	hChunkData
	hChunkCRLF
	hTrailer
	hBody
	hDone
)

// maxHead caps a response's status line and headers.
const maxHead = 64 << 10

// sink receives what a response carries.
type sink interface {
	// event is one SSE data event; true ends the reading (the stream's
	// outcome is known, the rest of the response is drained).
	event(Chunk) bool
}

var (
	errHeadTooLong = errors.New("response headers longer than 64 KiB")
	errBadResponse = errors.New("malformed HTTP response")
	errBadChunked  = errors.New("malformed chunked encoding")
	// errTrailing is bytes after a response that ended: it stands, but
	// the connection is not reused.
	errTrailing = errors.New("bytes after the response")
)

// HTTPError is a response refused by its status or content type.
type HTTPError struct{ Msg string }

func (e *HTTPError) Error() string { return e.Msg }

// reset readies p for a response whose events go to s.
func (p *h1) reset(s sink) {
	*p = h1{frame: p.frame[:0], line: p.line[:0], errBody: p.errBody[:0], length: -1, s: s}
	if cap(p.line) > 64<<10 {
		p.line = nil // an outsized line's room is not kept
	}
}

// feed decodes b. It returns an error once the response cannot be
// read on (the connection must then be closed); p.ended says the
// response ended cleanly.
func (p *h1) feed(b []byte) error {
	for len(b) > 0 && !p.ended {
		var err error
		switch p.state {
		case hStatus, hHeader:
			b, err = p.header(b)
		case hChunkSize, hTrailer:
			b, err = p.chunkLine(b)
		case hChunkData:
			n := int64(len(b))
			if n > p.left {
				n = p.left
			}
			err = p.body(b[:n])
			b = b[n:]
			if p.left -= n; p.left == 0 {
				p.state = hChunkCRLF
			}
		case hChunkCRLF:
			b, err = p.crlf(b)
		case hBody:
			n := int64(len(b))
			if p.length >= 0 && n > p.length {
				n = p.length
			}
			err = p.body(b[:n])
			b = b[n:]
			if p.length >= 0 {
				if p.length -= n; p.length == 0 {
					err = p.bodyEnd(err)
				}
			}
		case hDone:
			return errBadResponse // bytes after the response: not HTTP/1.1 as we speak it
		}
		if err != nil {
			return err
		}
	}
	if p.ended && len(b) > 0 {
		return errTrailing
	}
	return nil
}

// eof is the connection's end. A body read to the connection's end ends
// there; any other state is a response cut short.
func (p *h1) eof() error {
	switch {
	case p.ended:
		return nil
	case p.state == hBody && p.length < 0 && !p.chunked:
		return p.bodyEnd(nil)
	case p.state >= hChunkSize:
		return errCut
	}
	return errBadResponse
}

var errCut = errors.New("stream cut mid-response")

// started says whether any response byte arrived.
func (p *h1) started() bool { return p.state != hStatus || p.hdr > 0 || len(p.frame) > 0 }

func (p *h1) header(b []byte) ([]byte, error) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(p.frame)+len(b) > maxHead {
				return nil, errHeadTooLong
			}
			p.frame = append(p.frame, b...)
			return nil, nil
		}
		line := b[:i]
		if len(p.frame) > 0 {
			if len(p.frame)+i > maxHead {
				return nil, errHeadTooLong
			}
			p.frame = append(p.frame, line...)
			line = p.frame
		}
		b = b[i+1:]
		if p.hdr += len(line) + 1; p.hdr > maxHead {
			return nil, errHeadTooLong
		}
		err := p.headerLine(bytes.TrimSuffix(line, []byte("\r")))
		p.frame = p.frame[:0]
		if err != nil || p.state != hStatus && p.state != hHeader {
			return b, err
		}
	}
	return nil, nil
}

func (p *h1) headerLine(l []byte) error {
	if p.state == hStatus {
		// HTTP/1.x SSS reason
		if len(l) < 12 || !bytes.HasPrefix(l, []byte("HTTP/1.")) || l[8] != ' ' || (len(l) > 12 && l[12] != ' ') {
			return errBadResponse
		}
		p.status = 0
		for _, c := range l[9:12] {
			if c < '0' || c > '9' {
				return errBadResponse
			}
			p.status = p.status*10 + int(c-'0')
		}
		p.close = l[7] == '0'
		p.state = hHeader
		return nil
	}
	if len(l) > 0 {
		return p.field(l)
	}
	if p.status >= 100 && p.status < 200 {
		// An interim response (103 Early Hints): the real one follows.
		p.state, p.ctype, p.chunked, p.length = hStatus, "", false, -1
		return nil
	}
	switch {
	case p.status == 204 || p.status == 304:
		p.state, p.length = hBody, 0 // no body, whatever the headers say
		return p.bodyEnd(nil)
	case p.chunked:
		p.state, p.length = hChunkSize, -1
	case p.status == 200 && p.refused() != nil:
		return p.refused() // not an event stream: no need of its body
	case p.length == 0:
		p.state = hBody
		return p.bodyEnd(nil)
	default:
		p.state = hBody
		if p.length < 0 {
			p.close = true
		}
	}
	return nil
}

func (p *h1) field(l []byte) error {
	k, v, ok := bytes.Cut(l, []byte(":"))
	if !ok {
		return errBadResponse
	}
	v = bytes.TrimSpace(v)
	switch {
	case bytes.EqualFold(k, []byte("Content-Type")):
		p.ctype = string(v)
	case bytes.EqualFold(k, []byte("Transfer-Encoding")):
		if !bytes.EqualFold(v, []byte("chunked")) {
			return fmt.Errorf("transfer encoding %q not supported", v)
		}
		p.chunked = true
	case bytes.EqualFold(k, []byte("Content-Length")):
		n, ok := parseUint(v, 10)
		if !ok || p.length >= 0 && n != p.length {
			return errBadResponse
		}
		p.length = n
	case bytes.EqualFold(k, []byte("Connection")):
		if bytes.EqualFold(v, []byte("close")) {
			p.close = true
		}
	}
	return nil
}

func parseUint(v []byte, base int64) (int64, bool) {
	if len(v) == 0 || len(v) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		var d int64
		switch {
		case c >= '0' && c <= '9':
			d = int64(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = int64(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = int64(c-'A') + 10
		default:
			return 0, false
		}
		n = n*base + d
	}
	return n, true
}

// chunkLine reads a chunk-size line (size, extensions ignored), or a
// trailer line after the last chunk.
func (p *h1) chunkLine(b []byte) ([]byte, error) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		if len(p.frame)+len(b) > 4096 {
			return nil, errBadChunked
		}
		p.frame = append(p.frame, b...)
		return nil, nil
	}
	line := b[:i]
	if len(p.frame) > 0 {
		p.frame = append(p.frame, line...)
		line = p.frame
	}
	b = b[i+1:]
	line = bytes.TrimSuffix(line, []byte("\r"))
	if p.state == hTrailer {
		p.frame = p.frame[:0]
		if len(line) == 0 {
			return b, p.bodyEnd(nil)
		}
		return b, nil
	}
	size, _, _ := bytes.Cut(line, []byte(";"))
	n, ok := parseUint(bytes.TrimSpace(size), 16)
	p.frame = p.frame[:0]
	switch {
	case !ok:
		return nil, errBadChunked
	case n == 0:
		p.state = hTrailer
	default:
		p.state, p.left = hChunkData, n
	}
	return b, nil
}

func (p *h1) crlf(b []byte) ([]byte, error) {
	// The CRLF after a chunk's data, possibly split between pieces.
	for len(b) > 0 {
		switch {
		case b[0] == '\r' && !p.cr:
			p.cr = true
			b = b[1:]
		case b[0] == '\n':
			p.cr, p.state = false, hChunkSize
			return b[1:], nil
		default:
			return nil, errBadChunked
		}
	}
	return b, nil
}

// body takes a piece of the body: the SSE lines of an event stream, or
// the start of a refused response's body for its error message.
func (p *h1) body(b []byte) error {
	if err := p.refused(); err != nil {
		if n := min(len(b), 200-len(p.errBody)); n > 0 {
			p.errBody = append(p.errBody, b[:n]...)
		}
		if len(p.errBody) >= 200 {
			return p.refusal()
		}
		return nil
	}
	if p.s == nil {
		return nil // after the stream's outcome: drained
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(p.line)+len(b) > MaxLine {
				return ErrLineTooLong
			}
			p.line = append(p.line, b...)
			return nil
		}
		line := b[:i+1]
		if len(p.line) > 0 {
			if len(p.line)+len(line) > MaxLine {
				return ErrLineTooLong
			}
			p.line = append(p.line, line...)
			line = p.line
		}
		b = b[i+1:]
		err := p.sseLine(line)
		p.line = p.line[:0]
		if err != nil || p.s == nil {
			return err
		}
	}
	return nil
}

// sseLine hands a data line's event to s; other lines (comments, event:,
// id:, retry:, blank separators) carry nothing a benchmark needs.
func (p *h1) sseLine(line []byte) error {
	line = trimEOL(line)
	payload, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return nil
	}
	c, err := ParseChunk(bytes.TrimLeft(payload, " "))
	if err != nil {
		return err
	}
	if p.s.event(c) {
		p.s = nil
	}
	return nil
}

// refused is the error of a response that is not a 200 event stream.
func (p *h1) refused() error {
	if p.status != 200 {
		return errRefused
	}
	if !strings.HasPrefix(p.ctype, "text/event-stream") {
		return &HTTPError{fmt.Sprintf("response is %q, not an event stream", p.ctype)}
	}
	return nil
}

var errRefused = errors.New("refused")

// refusal is a refused response's error, with its body's start for a
// status other than 200.
func (p *h1) refusal() error {
	if err := p.refused(); err != errRefused {
		return err
	}
	return &HTTPError{fmt.Sprintf("HTTP %d: %s", p.status, strings.TrimSpace(string(p.errBody)))}
}

// bodyEnd ends the body: a last line without its newline still counts,
// as it does for the net/http reader.
func (p *h1) bodyEnd(err error) error {
	if err != nil {
		return err
	}
	p.state, p.ended = hDone, true
	if p.refused() != nil {
		return p.refusal()
	}
	if p.s != nil && len(p.line) > 0 {
		err = p.sseLine(p.line)
		p.line = p.line[:0]
	}
	return err
}
