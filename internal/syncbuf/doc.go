// Package syncbuf is a bytes.Buffer that several goroutines may write and read at once: what a
// test hands to a logger, a node's standard output or a server's log, and then reads while the
// writer still runs. Tests in six packages each kept a copy of it.
package syncbuf
