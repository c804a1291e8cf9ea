package yamlerr

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	yamlUnknownField = regexp.MustCompile(`field (\S+) not found in type \S+`)
	yamlWrongType    = regexp.MustCompile("cannot unmarshal !!(\\w+) `([^`]*)` into (\\S+)")
)

// Text rewords yaml.v3's errors for the reader of a config file:
// "unknown key foo" rather than Go type names.
func Text(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.ReplaceAll(msg, "unmarshal errors:\n  ", "")
	msg = yamlUnknownField.ReplaceAllString(msg, "unknown key $1")
	msg = yamlWrongType.ReplaceAllStringFunc(msg, func(m string) string {
		sub := yamlWrongType.FindStringSubmatch(m)
		want := sub[3]
		switch {
		case strings.HasPrefix(want, "int"), strings.HasPrefix(want, "*int"), strings.HasPrefix(want, "uint"):
			want = "an integer"
		case strings.HasPrefix(want, "bool"):
			want = "true or false"
		case strings.HasPrefix(want, "[]"):
			want = "a list"
		case strings.HasPrefix(want, "map"):
			want = "a mapping"
		case strings.HasPrefix(want, "float"), strings.HasPrefix(want, "*float"):
			want = "a number"
		case strings.HasPrefix(want, "string"):
			want = "a string"
		}
		got := map[string]string{"str": "a string", "int": "an integer", "bool": "a boolean", "float": "a number",
			"seq": "a list", "map": "a mapping", "null": "null"}[sub[1]]
		if got == "" {
			got = sub[1]
		}
		return strconv.Quote(sub[2]) + " is " + got + ", but " + want + " is expected"
	})
	return msg
}
