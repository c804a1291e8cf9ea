package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
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

// newLogger is the node's logger: cfg's level, format and labels, written to w.
//
// The text format is logfmt (slog's key=value lines): keys are words without spaces or quotes,
// and a value with spaces, quotes or an equals sign is quoted with Go's escapes.
//
// The json format is chainweb-node's (jsonLogMessageEncoding): one object a line with level
// (lower case), scope (an object of the logger's labels: chainwebVersion, cluster when set,
// component and chain where a part of the node logs), time (UTC ISO 8601 with milliseconds)
// and message, followed by the record's attributes as keys of their own, nested values as JSON
// objects. chainweb-node puts everything into message; the attributes are ours.
func newLogger(cfg Config, w io.Writer) *slog.Logger {
	var level slog.Level
	if cfg.LogLevel == "quiet" {
		level = levelQuiet
	} else {
		level.UnmarshalText([]byte(cfg.LogLevel)) // checked by Config.finish
	}
	var log *slog.Logger
	if cfg.LogFormat == "json" {
		log = slog.New(newJSONHandler(w, level)).With("chainwebVersion", cfg.Network)
	} else {
		log = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: textAttr}))
	}
	if cfg.ClusterID != "" {
		log = log.With("cluster", cfg.ClusterID)
	}
	return log
}

// textAttr keeps the text format logfmt: every key a word.
func textAttr(groups []string, a slog.Attr) slog.Attr {
	a.Key = logKey(a.Key)
	return a
}

// logKey is key as a log key: a key with spaces or other punctuation than _ . - / becomes
// camelCase ("proof of work" → "proofOfWork"), as the node's keys are written, so that no log
// line has a key a logfmt parser or a JSON query has to quote. The node's own keys are words
// already; this is the net under a key someone writes with a space.
func logKey(key string) string {
	ok := key != ""
	for _, r := range key {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_.-/", r))) {
			ok = false
			break
		}
	}
	if ok {
		return key
	}
	var b strings.Builder
	upper := false
	for _, r := range key {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if upper && b.Len() > 0 {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			upper = false
		default:
			upper = true
		}
	}
	if b.Len() == 0 {
		return "key"
	}
	return b.String()
}

// jsonHandler writes chainweb-node's JSON log lines (see newLogger). The attributes given to
// Logger.With are the logger's labels, its scope; a record's own attributes follow message.
type jsonHandler struct {
	mu     *sync.Mutex
	w      io.Writer
	level  slog.Leveler
	scope  []scopeLabel
	groups []string // open groups, outermost first: a record's attributes nest in them
}

type scopeLabel struct{ key, value string }

func newJSONHandler(w io.Writer, level slog.Leveler) *jsonHandler {
	return &jsonHandler{mu: new(sync.Mutex), w: w, level: level}
}

func (h *jsonHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

func (h *jsonHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.scope = slices.Clone(h.scope)
	prefix := strings.Join(h.groups, ".")
	for _, a := range as {
		a.Value = a.Value.Resolve()
		if a.Key == "" {
			continue
		}
		key := logKey(a.Key)
		if prefix != "" {
			key = prefix + "." + key
		}
		v := labelText(a.Value)
		// A label given again (a component naming its chain twice) replaces the first.
		if i := slices.IndexFunc(c.scope, func(l scopeLabel) bool { return l.key == key }); i >= 0 {
			c.scope[i].value = v
		} else {
			c.scope = append(c.scope, scopeLabel{key, v})
		}
	}
	return &c
}

func (h *jsonHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.groups = append(slices.Clone(h.groups), logKey(name))
	return &c
}

// labelText is a label's value as chainweb-node's labels are: text.
func labelText(v slog.Value) string {
	if v.Kind() == slog.KindString {
		return v.String()
	}
	b := appendJSONValue(nil, v)
	if s, err := strconv.Unquote(string(b)); err == nil && len(b) > 0 && b[0] == '"' {
		return s
	}
	return string(b)
}

// reservedKeys are the keys of the line itself; an attribute of the same name gets a _ suffix.
var reservedKeys = map[string]bool{"level": true, "scope": true, "time": true, "message": true}

func (h *jsonHandler) Handle(_ context.Context, r slog.Record) error {
	b := make([]byte, 0, 256)
	b = append(b, `{"level":`...)
	b = appendJSONString(b, strings.ToLower(r.Level.String()))
	b = append(b, `,"scope":{`...)
	for i, l := range h.scope {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, l.key)
		b = append(b, ':')
		b = appendJSONString(b, l.value)
	}
	b = append(b, `},"time":`...)
	t := r.Time
	if t.IsZero() {
		t = time.Now()
	}
	b = appendJSONString(b, t.UTC().Format("2006-01-02T15:04:05.000Z"))
	b = append(b, `,"message":`...)
	b = appendJSONString(b, r.Message)
	var attrs []slog.Attr
	r.Attrs(func(a slog.Attr) bool {
		attrs = append(attrs, a)
		return true
	})
	if len(h.groups) > 0 && len(attrs) > 0 {
		// The open groups nest the record's attributes: {"g1":{"g2":{...}}}.
		v := slog.GroupValue(attrs...)
		for i := len(h.groups) - 1; i > 0; i-- {
			v = slog.GroupValue(slog.Attr{Key: h.groups[i], Value: v})
		}
		attrs = []slog.Attr{{Key: h.groups[0], Value: v}}
	}
	for _, a := range attrs {
		a.Value = a.Value.Resolve()
		if a.Key == "" && a.Value.Kind() != slog.KindGroup {
			continue
		}
		if a.Key == "" { // an unnamed group's attributes are the record's own
			for _, ga := range a.Value.Group() {
				b = appendAttr(b, ga, true)
			}
			continue
		}
		b = appendAttr(b, a, true)
	}
	b = append(b, '}', '\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := h.w.Write(b)
	return err
}

// appendAttr appends ,"key":value (top says whether the key is one of the line's own).
func appendAttr(b []byte, a slog.Attr, top bool) []byte {
	a.Value = a.Value.Resolve()
	if a.Key == "" || a.Value.Kind() == slog.KindGroup && len(a.Value.Group()) == 0 {
		return b
	}
	key := logKey(a.Key)
	if top && reservedKeys[key] {
		key += "_"
	}
	b = append(b, ',')
	b = appendJSONString(b, key)
	b = append(b, ':')
	return appendJSONValue(b, a.Value)
}

// appendJSONValue appends v as JSON: numbers and booleans as themselves, durations and times
// as text (as the text format writes them), groups and values that marshal to JSON objects or
// lists as those, errors as their text.
func appendJSONValue(b []byte, v slog.Value) []byte {
	v = v.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return appendJSONString(b, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10)
	case slog.KindFloat64:
		f := v.Float64()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return appendJSONString(b, strconv.FormatFloat(f, 'g', -1, 64))
		}
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool())
	case slog.KindDuration:
		return appendJSONString(b, v.Duration().String())
	case slog.KindTime:
		return appendJSONString(b, v.Time().UTC().Format("2006-01-02T15:04:05.000Z"))
	case slog.KindGroup:
		b = append(b, '{')
		n := len(b)
		for _, a := range v.Group() {
			b = appendAttr(b, a, false)
		}
		if len(b) > n {
			b = append(b[:n], b[n+1:]...) // the first attribute's comma
		}
		return append(b, '}')
	}
	x := v.Any()
	if raw, ok := x.(json.RawMessage); ok && !json.Valid(raw) {
		return appendJSONString(b, string(raw)) // bytes that were to be JSON and are not: as text
	}
	if err, ok := x.(error); ok {
		if _, marshals := x.(json.Marshaler); !marshals {
			return appendJSONString(b, err.Error())
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return appendJSONString(b, fmt.Sprint(x))
	}
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
}

func appendJSONString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
}

// versionLine is what `ledger-node version` prints: the package version (the one /info and
// the version headers report), the commit the binary was built from ("unknown" when the build
// did not record it, as under go test; "+modified" when the tree had uncommitted changes)
// and the Go version.
func versionLine() string {
	b := readBuild()
	return fmt.Sprintf("ledger-node %s (commit %s, %s)", packageVersion, b.commit, runtime.Version())
}

// build is what the binary knows of how it was built.
type build struct {
	commit, time, module string
	settings             []debug.BuildSetting
	deps                 []*debug.Module
}

func readBuild() build {
	b := build{commit: "unknown", module: "github.com/ledgernode/ledger-node"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.commit = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		case "vcs.time":
			b.time = s.Value
		}
	}
	if modified {
		b.commit += "+modified"
	}
	if bi.Main.Path != "" {
		b.module = bi.Main.Path
	}
	b.settings, b.deps = bi.Settings, bi.Deps
	return b
}

// infoText is --info (configuration-tools' short program info, as chainweb-node prints it):
// one line naming the program, its version, the commit and the compiler.
func infoText() string {
	b := readBuild()
	s := fmt.Sprintf("ledger-node-%s (package %s revision %s", packageVersion, b.module, b.commit)
	if b.time != "" {
		s += ", committed " + b.time
	}
	return s + fmt.Sprintf(", compiled with %s for %s/%s)\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// longInfoText is --long-info: the info line, the build settings and every module the binary
// holds with its version, as configuration-tools lists a program's dependencies.
func longInfoText() string {
	b := readBuild()
	var s strings.Builder
	s.WriteString(infoText())
	fmt.Fprintf(&s, "\nVersion: %s\nCommit: %s\nGo: %s\nPlatform: %s/%s\n", packageVersion, b.commit, runtime.Version(),
		runtime.GOOS, runtime.GOARCH)
	if len(b.settings) > 0 {
		s.WriteString("\nBuild settings:\n")
		for _, st := range b.settings {
			fmt.Fprintf(&s, "  %s=%s\n", st.Key, st.Value)
		}
	}
	s.WriteString("\nDependencies:\n")
	if len(b.deps) == 0 {
		s.WriteString("  (not recorded in this build)\n")
	}
	for _, d := range b.deps {
		v := d.Version
		if d.Replace != nil {
			v += " => " + d.Replace.Path + " " + d.Replace.Version
		}
		fmt.Fprintf(&s, "  %s %s\n", d.Path, v)
	}
	return s.String()
}

// licenseText is --license. The repository declares no license of its own (it has no LICENSE
// file), so that is what is said, with the modules whose licenses come with their sources.
func licenseText() string {
	var s strings.Builder
	fmt.Fprintf(&s, "ledger-node %s: no license is declared for this program (its repository has no LICENSE file).\n", packageVersion)
	deps := readBuild().deps
	if len(deps) > 0 {
		s.WriteString("It is built with these modules, each under the license in its own source:\n")
		for _, d := range deps {
			fmt.Fprintf(&s, "  %s %s\n", d.Path, d.Version)
		}
	}
	return s.String()
}

// printfLog logs a library's Printf lines (fasthttp's server errors) as debug records, as the
// service API does, so that none reaches stderr as plain text.
type printfLog struct{ l *slog.Logger }

func (p printfLog) Printf(format string, args ...any) {
	p.l.Debug(fmt.Sprintf(format, args...), "component", "fasthttp")
}

// startLog is the logger of the start-up lines (the node's addresses and what it does):
// standard output, where scripts read the addresses, in the log's format and level but at
// least info, so that --log-level warn does not hide where the node serves. When the log goes
// to standard output as well, it is the node's logger.
func (n *node) startLog(out io.Writer) *slog.Logger {
	if n.cfg.LogHandle == "stdout" && (n.cfg.LogLevel == "info" || n.cfg.LogLevel == "debug") && n.log != nil {
		return n.log
	}
	cfg := n.cfg
	cfg.LogLevel = "info"
	return newLogger(cfg, out)
}
