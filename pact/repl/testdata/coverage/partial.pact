(module partial GOV
  (defcap GOV () true)
  (defun sign:string (x:integer)
    (if (< x 0)
      "negative"
      "non-negative"))
  (defun size:string (x:integer)
    (cond
      ((< x 10) "small")
      ((< x 100) "medium")
      "large"))
  (defun never-called:integer (x:integer)
    (let ((y (* x 2)))
      (if (> y 10)
        y
        0))))
