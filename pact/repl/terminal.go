package repl

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/peterh/liner"
	"golang.org/x/term"
)

// HistoryFile is the file the interactive REPL keeps its history in, in
// the working directory: P5's name for it (haskeline's historyFile
// setting), so that the two share a history.
const HistoryFile = ".pc-history"

// Terminal is the LineEditor on the process's own terminal (standard
// input and output), with liner's line editing: arrow keys, Emacs keys,
// history search with Ctrl-R, tab completion (Runner.CompleteWord). The history
// file keeps an entry a line, newest first, as haskeline writes it; it
// is written after every entry, so that a REPL killed in the middle of an
// evaluation keeps what was typed before.
type Terminal struct {
	st   *liner.State
	path string // the history file; "" keeps no history on disk
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// OpenTerminal puts the terminal into the mode line editing needs, reads
// the history from historyPath ("" for none; a file that is missing or
// unreadable starts an empty history) and completes names from r. Close
// gives the terminal back.
func OpenTerminal(r *Runner, historyPath string) *Terminal {
	t := &Terminal{st: liner.NewLiner(), path: historyPath}
	t.st.SetCtrlCAborts(true)
	// Bash's style, like haskeline's: Tab completes the common prefix
	// and a second Tab lists the candidates.
	t.st.SetTabCompletionStyle(liner.TabPrints)
	t.st.SetWordCompleter(func(line string, pos int) (string, []string, string) {
		// liner counts the cursor in runes, CompleteWord in bytes.
		rs := []rune(line)
		pos = min(max(pos, 0), len(rs))
		return r.CompleteWord(line, len(string(rs[:pos])))
	})
	if historyPath != "" {
		if data, err := os.ReadFile(historyPath); err == nil && len(bytes.TrimSpace(data)) > 0 {
			lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
			slices.Reverse(lines)
			// An invalid line (not UTF-8, too long) ends the reading:
			// the history is a convenience, not worth refusing to start.
			_, _ = t.st.ReadHistory(strings.NewReader(strings.Join(lines, "\n") + "\n"))
		}
	}
	return t
}

// ReadLine implements LineEditor.
func (t *Terminal) ReadLine(prompt string) (string, error) {
	line, err := t.st.Prompt(prompt)
	if errors.Is(err, liner.ErrPromptAborted) {
		return "", ErrInterrupt
	}
	return line, err
}

// AddHistory implements LineEditor: an entry of several lines (see
// HistoryEntry) goes in a line at a time. The file is written at once;
// a failure to write it is ignored, as haskeline does, since it must not
// stop the session.
func (t *Terminal) AddHistory(entry string) {
	for _, l := range strings.Split(entry, "\n") {
		if strings.TrimSpace(l) != "" {
			t.st.AppendHistory(l)
		}
	}
	if t.path == "" {
		return
	}
	var buf bytes.Buffer
	if _, err := t.st.WriteHistory(&buf); err != nil {
		return
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	slices.Reverse(lines)
	// 0600: history holds what was typed, keys and secrets included.
	_ = os.WriteFile(t.path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
}

// Close gives the terminal back its mode from before OpenTerminal.
func (t *Terminal) Close() error { return t.st.Close() }
