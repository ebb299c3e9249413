"""SQLite storage (stdlib sqlite3, WAL): sessions, reviews, summaries, audit log."""
