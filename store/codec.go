package store

import (
	"fmt"

	"github.com/tinylib/msgp/msgp"
)

// unmarshalRecord decodes one msgp record that must fill b exactly.
//
// msgp's generated decoders trust array headers and allocate what they claim, so a corrupt
// length could ask for gigabytes. msgp.Skip walks the same bytes without allocating and fails on
// any header that overruns the input (and on runaway nesting), so running it first turns every
// malformed value into an error before the generated code sees it.
func unmarshalRecord(what string, b []byte, r msgp.Unmarshaler) error {
	rest, err := msgp.Skip(b)
	if err == nil && len(rest) != 0 {
		err = fmt.Errorf("%d trailing bytes", len(rest))
	}
	if err == nil {
		_, err = r.UnmarshalMsg(b)
	}
	if err != nil {
		return fmt.Errorf("%w: %s record: %v", errCorrupt, what, err)
	}
	return nil
}

// msgpRecord is what every generated record type implements.
type msgpRecord interface {
	msgp.Marshaler
	msgp.Unmarshaler
}
