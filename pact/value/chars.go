package value

import (
	"math/bits"
	"sort"
	"unicode/utf8"
	"unsafe"
)

// Counting and finding characters of strings eight bytes at a time. P5
// counts strings in characters (Haskell Text) and prices `length` at a
// hundredth of a milligas per character and `drop` at a flat 100 mg, so a
// byte-at-a-time scan of a long string costs far more than it is charged.
//
// Every string value is valid UTF-8 (the lexer, the JSON parser and
// base64-decode check it, and the natives cut strings only between
// characters), so its characters are its bytes that are not continuation
// bytes (10xxxxxx).

const (
	hiBits = 0x8080808080808080
	loBits = 0x0101010101010101
)

// load64 reads the 8 bytes of s at i, little-endian (one load on the
// platforms we run on).
func load64(s string, i int) uint64 {
	w := s[i : i+8] // one bounds check for the eight bytes
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// continuations has the top bit of each byte of w set where that byte is a
// UTF-8 continuation byte: bit 7 set and bit 6 clear.
func continuations(w uint64) uint64 { return w &^ (w << 1) & hiBits }

// CharCount is the number of characters of s.
func CharCount(s string) int {
	n := len(s)
	i := 0
	for ; i+32 <= len(s); i += 32 {
		n -= bits.OnesCount64(continuations(load64(s, i)) | continuations(load64(s, i+8))>>1 |
			continuations(load64(s, i+16))>>2 | continuations(load64(s, i+24))>>3)
	}
	for ; i+8 <= len(s); i += 8 {
		n -= bits.OnesCount64(continuations(load64(s, i)))
	}
	for ; i < len(s); i++ {
		if s[i]&0xC0 == 0x80 {
			n--
		}
	}
	return n
}

// runeLen is the number of characters of s.
func runeLen(s string) int { return CharCount(s) }

// charCountUpTo is min(limit, CharCount(s)), reading about limit
// characters' bytes rather than all of s.
func charCountUpTo(s string, limit int) int {
	if limit <= 0 {
		return 0
	}
	return CharCount(s[:charOffset(s, limit)])
}

// charOffset is the byte offset at which character n of s starts (counting
// from 0), or len(s) when s has n characters or fewer.
func charOffset(s string, n int) int {
	i := 0
	// A word holds at most 8 character starts: while n >= 8, character n
	// starts after it.
	for n >= 8 && i+8 <= len(s) {
		n -= 8 - bits.OnesCount64(continuations(load64(s, i)))
		i += 8
	}
	for ; i < len(s); i++ {
		if s[i]&0xC0 != 0x80 {
			if n == 0 {
				return i
			}
			n--
		}
	}
	return len(s)
}

// charOffsetFromEnd is the byte offset at which the last n characters of s
// start, 0 when s has n characters or fewer.
func charOffsetFromEnd(s string, n int) int {
	i := len(s)
	// A word holds at most 8 character starts: while n > 8, the last n
	// characters start before it. The scan may stop inside a character; the
	// byte loop then meets its start, not yet counted.
	for n > 8 && i >= 8 {
		n -= 8 - bits.OnesCount64(continuations(load64(s, i-8)))
		i -= 8
	}
	for i > 0 && n > 0 {
		i--
		if s[i]&0xC0 != 0x80 {
			n--
		}
	}
	return i
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if load64(s, i)&hiBits != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// reverseChars is s with its characters in reverse order, each
// character's bytes kept in order.
func reverseChars(s string) string {
	out := make([]byte, len(s))
	if isASCII(s) {
		for i := 0; i < len(s); i++ {
			out[len(s)-1-i] = s[i]
		}
		return string(out)
	}
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		copy(out[len(s)-i-size:], s[i:i+size])
		i += size
	}
	return string(out)
}

// oneCharStrings are the strings of one ASCII character as Values, which
// str-to-list hands out without allocating.
var oneCharStrings = func() (t [utf8.RuneSelf]Value) {
	for i := range t {
		t[i] = String(string(rune(i)))
	}
	return
}()

// explode is str-to-list's list: one string per character. An ASCII
// character's string is shared; any other is a slice of s.
func explode(s string) List {
	out := make(List, 0, CharCount(s))
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			out = append(out, oneCharStrings[c])
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		out = append(out, String(s[i:i+size]))
		i += size
	}
	return out
}

// Long strings are indexed, so that the natives P5 prices below a scan
// (drop at a flat 100 mg, length at a hundredth of a milligas a character)
// do not read a long string again each time a transaction cuts or measures
// it, or a piece of it: a loop of drops over a million-character string
// would otherwise take minutes for a block's gas. An interpreter keeps the
// indexes of the last few long strings it measured; a string that lies
// inside an indexed one (what take and drop make share its bytes) is
// measured through that index.

const (
	// charIndexMin is the shortest string worth an index: a scan of a
	// shorter one costs a few microseconds at most.
	charIndexMin = 1 << 12
	// charMark is the number of characters between marks.
	charMark = 256
	// charIndexes is how many indexes an interpreter keeps.
	charIndexes = 32
)

// charIndex is the byte offset of every charMark-th character of s.
type charIndex struct {
	s     string // held, so that its bytes stay where the index says
	ascii bool   // every byte a character: no marks needed
	marks []int  // marks[j] is the byte offset of character j·charMark
	chars int
}

func newCharIndex(s string) *charIndex {
	x := &charIndex{s: s}
	if isASCII(s) {
		x.ascii, x.chars = true, len(s)
		return x
	}
	x.marks = make([]int, 0, len(s)/charMark+1)
	for off := 0; ; {
		x.marks = append(x.marks, off)
		next := off + charOffset(s[off:], charMark)
		if next == len(s) {
			x.chars = (len(x.marks)-1)*charMark + CharCount(s[off:])
			return x
		}
		off = next
	}
}

// startsBefore is the number of characters of s that start before byte
// offset a.
func (x *charIndex) startsBefore(a int) int {
	if x.ascii {
		return a
	}
	j := sort.Search(len(x.marks), func(j int) bool { return x.marks[j] > a }) - 1
	return j*charMark + CharCount(x.s[x.marks[j]:a])
}

// offsetOf is the byte offset at which character c of s starts, len(s)
// for c >= the number of characters.
func (x *charIndex) offsetOf(c int) int {
	switch {
	case c >= x.chars:
		return len(x.s)
	case x.ascii:
		return c
	}
	j := c / charMark
	return x.marks[j] + charOffset(x.s[x.marks[j]:], c%charMark)
}

// charView is a string measured through an index: t is x.s[a : a+len(t)].
type charView struct {
	x      *charIndex
	a, end int
}

// chars is the view's number of characters (of character starts, for a
// view cut inside a character, as CharCount counts).
func (v charView) chars() (first, n int) {
	first = v.x.startsBefore(v.a)
	return first, v.x.startsBefore(v.end) - first
}

// CharIndexCache is an interpreter's indexes, the newest replacing the
// oldest.
type CharIndexCache struct {
	xs   [charIndexes]*charIndex
	next int
}

// view finds t in an indexed string, indexing t itself when it is long and
// in none. ok is false for a short string, which is simply scanned.
func (c *CharIndexCache) view(t string) (v charView, ok bool) {
	if len(t) < charIndexMin {
		return charView{}, false
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(t)))
	for _, x := range c.xs {
		if x == nil {
			continue
		}
		// x holds its string, so no other string's bytes can lie in its
		// range: t inside it is a piece of it.
		base := uintptr(unsafe.Pointer(unsafe.StringData(x.s)))
		if p >= base && p-base+uintptr(len(t)) <= uintptr(len(x.s)) {
			a := int(p - base)
			return charView{x, a, a + len(t)}, true
		}
	}
	x := newCharIndex(t)
	c.xs[c.next] = x
	c.next = (c.next + 1) % charIndexes
	return charView{x, 0, len(t)}, true
}

// CharCount is CharCount(s), through an index for a long string.
func (c *CharIndexCache) CharCount(s string) int {
	if v, ok := c.view(s); ok {
		_, n := v.chars()
		return n
	}
	return CharCount(s)
}

// charOffset is charOffset(s, n), through an index for a long string.
func (c *CharIndexCache) charOffset(s string, n int) int {
	v, ok := c.view(s)
	if !ok {
		return charOffset(s, n)
	}
	first, count := v.chars()
	if n >= count {
		return len(s)
	}
	return v.x.offsetOf(first+n) - v.a
}

// charOffsetFromEnd is charOffsetFromEnd(s, n), through an index for a
// long string.
func (c *CharIndexCache) charOffsetFromEnd(s string, n int) int {
	v, ok := c.view(s)
	if !ok {
		return charOffsetFromEnd(s, n)
	}
	first, count := v.chars()
	switch {
	case n <= 0:
		return len(s)
	case n >= count:
		return 0
	}
	return v.x.offsetOf(first+count-n) - v.a
}

// CharCountUpTo is charCountUpTo(s, limit), through an index for a long
// string.
func (c *CharIndexCache) CharCountUpTo(s string, limit int) int {
	if len(s) < charIndexMin || limit <= 0 {
		return charCountUpTo(s, limit)
	}
	return min(limit, c.CharCount(s))
}
