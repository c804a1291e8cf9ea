// Package hangguard is how the tests wait. A test waits for what the code guarantees: an event,
// a state reached, a channel closed, a count. It never waits for a speed, since on a shared,
// busy machine anything can take seconds; speed belongs in bench/, measured against a baseline
// in the same run.
//
// The one timeout a test keeps is the guard against a hang: Limit long (minutes), so that a
// broken change fails with a message instead of running into go test's -timeout, which would
// kill the whole package and say nothing about the test. Every failure it reports says that it
// is a hang guard, not a speed check.
//
// internal/layout's TestNoWallClockBounds keeps the rule: it refuses a test that bounds a
// duration by a constant under ten seconds.
package hangguard
