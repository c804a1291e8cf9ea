package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// levelQuiet is chainweb-node's log level quiet: above every level, so nothing is logged.
const levelQuiet = slog.Level(100)

// checkLogHandle checks a logHandle value: stderr, stdout or file:PATH.
func checkLogHandle(h string) error {
	switch {
	case h == "stderr", h == "stdout":
		return nil
	case strings.HasPrefix(h, "file:") && len(h) > len("file:"):
		return nil
	case strings.HasPrefix(h, "es:"):
		return fmt.Errorf("logHandle (--log-handle) %q: logging to Elasticsearch is not supported; use stderr, stdout or file:PATH", h)
	}
	return fmt.Errorf("logHandle (--log-handle) %q: want stderr, stdout or file:PATH", h)
}

// openLogHandle is the writer of cfg.LogHandle; close releases a log file.
func openLogHandle(h string, stdout, stderr io.Writer) (w io.Writer, close func(), err error) {
	switch h {
	case "stdout":
		return stdout, func() {}, nil
	case "stderr":
		return stderr, func() {}, nil
	}
	path := strings.TrimPrefix(h, "file:")
	f, err := os.Create(path) // overwritten at start, as chainweb-node does
	if err != nil {
		return nil, nil, fmt.Errorf("log file: %w", err)
	}
	return f, func() { f.Close() }, nil
}

// newLogger is the node's logger: cfg's level, format and cluster label, written to w.
//
// The json format follows chainweb-node's (jsonLogMessageEncoding) as far as slog allows: the
// keys level (lower case, as chainweb writes it), time (UTC ISO 8601 with milliseconds) and
// message. slog writes time first, and a message's attributes are keys of the object beside
// them, where chainweb-node has a "scope" object of labels.
func newLogger(cfg Config, w io.Writer) *slog.Logger {
	var level slog.Level
	if cfg.LogLevel == "quiet" {
		level = levelQuiet
	} else {
		level.UnmarshalText([]byte(cfg.LogLevel)) // checked by Config.finish
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	if cfg.LogFormat == "json" {
		opts.ReplaceAttr = jsonAttr
		h = slog.NewJSONHandler(w, opts)
	} else {
		h = slog.NewTextHandler(w, opts)
	}
	log := slog.New(h)
	if cfg.ClusterID != "" {
		log = log.With("cluster", cfg.ClusterID)
	}
	return log
}

// jsonAttr renames slog's built-in keys to chainweb-node's and writes their values as it does.
func jsonAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.MessageKey:
		a.Key = "message"
	case slog.LevelKey:
		if l, ok := a.Value.Any().(slog.Level); ok {
			a.Value = slog.StringValue(strings.ToLower(l.String()))
		}
	case slog.TimeKey:
		if t, ok := a.Value.Any().(time.Time); ok {
			a.Value = slog.StringValue(t.UTC().Format("2006-01-02T15:04:05.000Z"))
		}
	}
	return a
}

// versionLine is what `ledger-node version` prints: the package version (the one /info and
// the version headers report), the commit the binary was built from ("unknown" when the build
// did not record it, as under go test; "+modified" when the tree had uncommitted changes)
// and the Go version.
func versionLine() string {
	commit, modified := "unknown", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified {
		commit += "+modified"
	}
	return fmt.Sprintf("ledger-node %s (commit %s, %s)", packageVersion, commit, runtime.Version())
}
