// Package yamlerr words gopkg.in/yaml.v3's decoding errors for the person
// who wrote the configuration file: "unknown key foo" and "\"x\" is a
// string, but an integer is expected" rather than Go type names.
package yamlerr
