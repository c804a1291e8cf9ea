//go:build !linux

package main

import "errors"

func pinToCPU(int) error { return errors.New("pinning is implemented for Linux only") }
