package server

import (
	"strings"
	"testing"
)

// The attack of issue 35 began with an unsigned deploy of a module governed by "", which
// anyone could then redeploy. Pact 5 refuses the deploy (InvalidKeysetNameFormat).
func TestEmptyGovernanceRefused(t *testing.T) {
	e := open(t, Config{})
	r := sendOne(t, e, build(t, cmdSpec{code: `(module govempty "" (defun f () 1))`, nonce: "deploy"}))
	if r.Result.Status != "failure" || !strings.Contains(r.Result.Error.Message, "Invalid keyset name format") {
		t.Fatalf(`deploy governed by "": %+v %+v`, r.Result, r.Result.Error)
	}
	// Nothing was installed: a later deploy is a new install, under its own governance.
	r = sendOne(t, e, build(t, cmdSpec{code: `(describe-module "govempty")`, nonce: "describe"}))
	if r.Result.Status != "failure" || !strings.Contains(r.Result.Error.Message, "Cannot find module") {
		t.Fatalf("the module governed by \"\" was installed: %+v %s", r.Result, r.Result.Data)
	}
}
