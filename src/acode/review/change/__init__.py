"""The change under review: read from git (a branch, uncommitted work, a commit, the CI target), its diffs
parsed, cut into regions and packed to the model's window, and its surroundings in the project (callers,
related tests, what the changed lines use)."""
