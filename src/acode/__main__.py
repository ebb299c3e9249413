from acode.cli.main import run

run()
