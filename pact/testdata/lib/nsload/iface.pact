(namespace "NS")
(interface i1
  (defun f:integer ()))
