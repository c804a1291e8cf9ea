// Package layout holds the test that keeps the package map true: which of the module's packages
// each package may import (TestImportRules), and which may import the third-party modules that
// must stay behind one layer (TestThirdPartyImports: goleveldb, protoactor, fasthttp). The map
// is the README's "Layout" section in executable form: a new import arrow it does not allow
// fails `make test`, and so does a known exception (issue 15's debt) that has gone, so that the
// list of exceptions stays current.
package layout
