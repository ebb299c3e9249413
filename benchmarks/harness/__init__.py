"""What every benchmark shares: a command in its own process group, the local model server, and a run kept
as a dated record."""
