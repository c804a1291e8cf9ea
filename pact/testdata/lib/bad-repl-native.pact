;; A .pact file calling a REPL native (loaded by env-failures.repl).
(env-data { "a": 1 })
