(expect "REPL natives are not available in .pact files" 1 1)
