package eval

import "strconv"

// Gas meters evaluation in milligas. The zero value is P5's free model:
// nothing is charged and there is no limit. The charging points are in
// place (every application charges one unit through charge); a table
// model plugs in through Rate.
type Gas struct {
	// Limit in milligas; 0 means unlimited.
	Limit int64
	// Rate is the milligas charged per metered operation; 0 is free.
	Rate int64
	// Used is the milligas consumed so far.
	Used int64
}

func (g *Gas) charge(units int64) error {
	if g.Rate == 0 {
		return nil
	}
	g.Used += units * g.Rate
	if g.Limit > 0 && g.Used > g.Limit {
		return &Error{Kind: ErrGas, Msg: "Gas limit (" + strconv.FormatInt(g.Limit/1000, 10) + ") exceeded: " +
			strconv.FormatInt((g.Used+999)/1000, 10)}
	}
	return nil
}
