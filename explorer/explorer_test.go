package explorer

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFilesEmbedded(t *testing.T) {
	for name, want := range map[string]string{"index.html": "<!doctype html>", "app.js": "blake2s", "style.css": "body"} {
		b, ct, ok := File(name)
		if !ok || !strings.Contains(string(b), want) || ct == "" {
			t.Errorf("%s: ok %v, type %q, %d bytes", name, ok, ct, len(b))
		}
	}
	for _, name := range []string{"", "../explorer.go", "static/app.js", "doc.go"} {
		if _, _, ok := File(name); ok {
			t.Errorf("File(%q) served", name)
		}
	}
}

func TestStatusJSONHasEveryList(t *testing.T) {
	var m map[string]any
	if err := json.Unmarshal(Status{Mining: "off"}.JSON(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pending", "pendingKeys", "peers"} {
		if m[k] == nil {
			t.Errorf("%s is null: the page iterates it", k)
		}
	}
}
