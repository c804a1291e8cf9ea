(module hello g
  (defcap g () true)
  (defun greet (name:string) (format "Hello, {}!" [name])))
(enforce (= (hello.greet "pact") "Hello, pact!") "greet")
(enforce false "executed to the end")
