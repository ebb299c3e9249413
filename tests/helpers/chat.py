"""The chat's session as stored, and leaving the chat as a user does."""

from __future__ import annotations

import pexpect

from acode.paths import ProjectPaths
from acode.store.sessions import SessionStore


def last_session_messages(repo):
    store = SessionStore(ProjectPaths(repo).db_file)
    try:
        return store.load_messages(store.list(limit=1)[0].id)
    finally:
        store.close()


def quit_chat(child):
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
