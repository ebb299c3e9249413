"""Where the fix is: the modules the failing tests reach (locate.py: imports, tracebacks, names), what
each test executed (spectrum.py, run by files_run.py with the named tests' files), the files a prompt
shows and how (targets.py; a long file as an excerpt, excerpt.py, with the definitions a failing output
quotes, quoted.py)."""
