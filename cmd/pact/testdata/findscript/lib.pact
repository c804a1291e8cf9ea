(module lib g
  (defcap g () true)
  (defun double (x:integer) (* 2 x)))
