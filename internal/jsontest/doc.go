// Package jsontest holds JSON helpers shared by tests of several packages.
package jsontest
