;; helper.pact: a small library that env.repl loads with (load ...). It is
;; a .pact file, so it is evaluated without the REPL natives.
(module helper GOV
  (defcap GOV () true)
  (defconst GREETING:string "hello")
  (defun greet:string (name:string) (format "{}, {}!" [GREETING name]))
  (defun twice:integer (x:integer) (* 2 x)))

(helper.twice 21)
