"""What the trust checks and the redaction hold: hostile shell lines by class, hostile inputs from a
project, model or repository, and secrets redaction."""
