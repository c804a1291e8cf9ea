(module alone g
  (defcap g () true)
  (defun one () 1))
(enforce (= (alone.one) 1) "one")
