(module m g
  (defcap g () true)
  (implements i1)
  (defun f:integer () 1))
