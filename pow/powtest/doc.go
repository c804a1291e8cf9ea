// Package powtest builds braids of mined headers in memory for tests of the cut rules (pow) and
// of the runtime that applies them (actors): a development version at an easy target, its
// genesis blocks, and blocks valid by every pow rule, kept in a map that serves as the store.
// It is for tests only.
package powtest
