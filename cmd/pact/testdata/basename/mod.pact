(enforce false "mod.pact ran instead of mod.repl")
