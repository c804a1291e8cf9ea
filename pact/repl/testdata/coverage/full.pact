(interface greeter
  (defconst PREFIX
    "hello ")
  (defun greet:string (name:string)))
(module full GOV
  (implements greeter)
  (defcap GOV ()
    true)
  (defcap OWNED (who:string)
    (enforce
      (!= who "")
      "no owner"))
  (defschema item
    n:integer)
  (deftable items:{item})
  (defconst LIMIT
    (+ 40
       2))
  (defun greet:string (name:string)
    (+ greeter.PREFIX
       name))
  (defun pick:string (x:integer)
    (if (> x 0)
      (if (> x LIMIT)
        "big"
        "small")
      "none"))
  (defun grade:string (x:integer)
    (cond
      ((< x 10)
        "low")
      ((< x 100)
        "mid")
      "high"))
  (defun both:bool (a:bool b:bool)
    (and a
      (or b
        (not a))))
  (defun sum:integer (xs:[integer])
    (fold
      (+)
      0
      (map
        (lambda (x)
          (* x
             2))
        xs)))
  (defun fields:integer (o:object)
    (bind o
      {"a" := a,
       "b" := b}
      (let ((c
              (+ a
                 b)))
        c)))
  (defun literal:object ()
    {"list":
      [1
       (+ 1 1)],
     "sum":
      (sum
        [1 2])})
  (defun guarded:string (who:string)
    (with-capability
      (OWNED who)
      (concat
        ["owned by "
         who])))
  (defun one:bool (x:integer)
    (enforce-one
      "none held"
      [(enforce
         (= x 1)
         "not one")
       (enforce
         (= x 2)
         "not two")]))
  (defun recover:string ()
    (try
      "recovered"
      (enforce
        false
        "fails")))
  (defun ug ()
    (create-user-guard
      (check
        "k")))
  (defun check:bool (k:string)
    (enforce
      (= k "k")
      "bad key"))
  (defun via:string (m:module{greeter})
    (m::greet
      "ref"))
  (defpact trip:string (x:integer)
    (step-with-rollback
      (+ "out "
         (int-to-str 10 x))
      (+ "back "
         (int-to-str 10 x)))
    (step
      "there")))
