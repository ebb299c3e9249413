"""The command line: typer commands that parse flags, call one service and render the result."""
