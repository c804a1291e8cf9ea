package hangguard

import (
	"context"
	"os"
	"testing"
	"time"
)

// Limit is how long a test waits for something the code guarantees before it calls it a hang.
// LEDGER_NODE_HANG_GUARD (a Go duration) changes it, for a machine slower still.
var Limit = limit()

func limit() time.Duration {
	if v := os.Getenv("LEDGER_NODE_HANG_GUARD"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return 3 * time.Minute
}

// pollMax is the longest pause between two looks at a condition. Polling starts at a
// millisecond and doubles up to it, so a fast machine is not made to wait.
const pollMax = 50 * time.Millisecond

// Until waits until cond holds, looking again after a growing pause. It fails the test if cond
// does not hold within Limit: what names what was awaited.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !Wait(cond) {
		t.Fatalf("hang guard: %s did not happen within %v (a guard against a hang, not a speed check)", what, Limit)
	}
}

// Wait is Until for a caller that reports itself: it says whether cond held within Limit.
func Wait(cond func() bool) bool {
	return WaitFor(Limit, cond)
}

// WaitFor waits at most d for cond, and says whether it held. It is for a test that needs a
// guard of its own (a whole network's progress, which takes longer than Limit allows).
func WaitFor(d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(end) {
			return false
		}
		time.Sleep(pause)
		if pause < pollMax {
			pause *= 2
		}
	}
	return true
}

// Recv receives from ch, failing the test if nothing comes within Limit. A closed channel
// counts as received (the zero value).
func Recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	timer := time.NewTimer(Limit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("hang guard: %s did not arrive within %v (a guard against a hang, not a speed check)", what, Limit)
		panic("unreachable")
	}
}

// After is the guard's channel, for a select that waits on several channels: it fires after
// Limit. A test that selects on it must fail with Failure's words.
func After() <-chan time.Time { return time.After(Limit) }

// Failure is the message of a hang guard's failure, for a test that selects on After.
func Failure(what string) string {
	return "hang guard: " + what + " did not happen within " + Limit.String() + " (a guard against a hang, not a speed check)"
}

// Context is a context that ends after Limit, and with the test.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), Limit)
	t.Cleanup(cancel)
	return ctx
}

// Deadline is the time Limit from now, for a connection's SetDeadline or a loop's end.
func Deadline() time.Time { return time.Now().Add(Limit) }
