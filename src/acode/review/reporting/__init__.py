"""A finished review as people and CI systems read it: terminal, Markdown, SARIF, JSON, and the CI
annotation formats. Everything printed goes through the secret redaction."""
