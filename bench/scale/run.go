package main

import "errors"

// runMain is `scale run`: the measurements (coming next).
func runMain([]string) error { return errors.New("scale run: not written yet") }
