//go:build race

package main

// raceEnabled: the kill test builds the node binary with -race too, so that the build reuses the
// race-instrumented packages the test binary was built from (and the child process is checked).
const raceEnabled = true
