"""acode.secrets: detect-secrets' plugins behind find_secrets / redact (issue 14 item 5)."""

from __future__ import annotations

import pytest

from acode.secrets import REDACTED, find_secrets, redact, redact_data

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
PEM = (
    "key below\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAz1Y2dGhpcyBpcyBub3QgYSByZWFs\n"
    "a2V5IGJ1dCBpdCBsb29rcyBsaWtlIG9uZQ==\n-----END RSA PRIVATE KEY-----\nafter the key\n"
)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("DB_PASSWORD=hunter2isnotsafe", "hunter2isnotsafe"),  # unquoted .env assignment
        ("export DB_PASSWORD=hunter2isnotsafe", "hunter2isnotsafe"),
        ("database:\n  password: s3cr3tP4ssw0rd\n", "s3cr3tP4ssw0rd"),  # YAML
        (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET),  # ~/.aws/credentials
        (f'AWS_SECRET = "{AWS_SECRET}"', AWS_SECRET),
        ('password = "hunter2hunter2"', "hunter2hunter2"),
        ("key = 'AKIAABCDEFGHIJKLMNOP'", "AKIAABCDEFGHIJKLMNOP"),
        ("token ghp_" + "a1B2" * 9 + " used", "ghp_" + "a1B2" * 9),
        ("https://deploy:pa55word99@example.com/repo.git", "pa55word99"),
        ("GITHUB_TOKEN=abcdef123456xyz", "abcdef123456xyz"),  # names detect-secrets lacks, added
        ('access_token: "abcdefgh123"', "abcdefgh123"),
        ("Found password: s3cr3tP4ssw0rd and more text", "s3cr3tP4ssw0rd"),  # prose after the value
        (
            'blob = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdISUo="',
            "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdISUo=",
        ),
    ],
)
def test_each_kind_of_secret_is_found_and_hidden(text, secret):
    assert find_secrets(text), text
    hidden = redact(text)
    assert secret not in hidden and REDACTED in hidden


def test_a_pem_key_is_hidden_whole_and_the_rest_is_kept():
    hidden = redact(PEM)
    assert "MIIEpAIBAAKCAQEAz1Y2" not in hidden and "a2V5IGJ1dCBpdCBsb29rcyBsaWtl" not in hidden
    assert hidden == f"key below\n{REDACTED}\nafter the key\n"
    [secret] = find_secrets(PEM)
    assert (secret.line, secret.kind) == (2, "private-key")
    assert PEM[secret.start : secret.end].startswith("-----BEGIN RSA PRIVATE KEY-----")
    assert PEM[secret.start : secret.end].endswith("-----END RSA PRIVATE KEY-----")


def test_a_pem_key_cut_before_its_end_is_hidden_to_the_end():
    assert (
        redact("x\n-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7\n")
        == f"x\n{REDACTED}"
    )


def test_line_numbers_kinds_and_spans():
    text = 'a = 1\npassword = "hunter2hunter2"\nb = 2\nkey = "AKIAABCDEFGHIJKLMNOP"\n'
    found = find_secrets(text)
    assert [(s.line, s.kind) for s in found] == [(2, "secret-keyword"), (4, "aws-access-key")]
    assert [text[s.start : s.end] for s in found] == ["hunter2hunter2", "AKIAABCDEFGHIJKLMNOP"]


@pytest.mark.parametrize(
    "text",
    [
        "password = get_password()",
        'token = os.environ["TOKEN"]',
        "password = os.environ['DB_PASSWORD']",
        "self.password = password",
        "def login(user: str, password: str) -> bool:",
        "    password: str",
        "password: Optional[str] = None",
        'api_key = "changeme"',
        "DB_PASSWORD=$DB_PASSWORD",
        "password: ${DB_PASSWORD}",
        "api_key_env: ACODE_API_KEY",
        "commit 3d00d9d4a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5",
        'sha = "3d00d9d4a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5"',  # a git commit id is not hidden
        "if password == other_password:",
        "server at 93.184.216.34",
        "tokens: 1200 in, 300 out",
        "max_tokens: 512",
        "token_count = count(text)",
        "self.token = nextchar",
        "elif token == 0x22: # real",
        "- password: password to use with username",
        "Token = Ignore + PlainToken",
        "token_type = 'comment'",
        "characters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'",
    ],
)
def test_code_references_and_placeholders_are_not_secrets(text):
    assert find_secrets(text) == [] and redact(text) == text


def test_source_files_need_quoted_values_like_detect_secrets():
    assert find_secrets("password = some_function_result_value", path="app.py") == []
    assert find_secrets('password = "hunter2hunter2"', path="app.py")
    assert find_secrets("DB_PASSWORD=hunter2isnotsafe", path=".env")
    assert find_secrets("password: hunter2isnotsafe", path="config.yml")


def test_redact_data_walks_json_and_keeps_keys():
    data = {"password": "DB_PASSWORD=hunter2isnotsafe", "n": 3, "items": [("ok", "ghp_" + "a1B2" * 9)]}
    assert redact_data(data) == {"password": f"DB_PASSWORD={REDACTED}", "n": 3, "items": [["ok", REDACTED]]}


def test_redacting_twice_changes_nothing_more_and_empty_text_is_kept():
    once = redact("DB_PASSWORD=hunter2isnotsafe\npassword: s3cr3tP4ssw0rd")
    assert redact(once) == once
    assert redact("") == "" and find_secrets("") == []


def test_very_long_lines_are_scanned_to_the_end():
    text = "x" * 50_000 + ' key = "AKIAABCDEFGHIJKLMNOP"'
    assert "AKIAABCDEFGHIJKLMNOP" not in redact(text)


def test_authorization_headers_and_provider_key_shapes_in_free_text():
    from acode.secrets import redact

    assert redact("extraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46ZmFrZQ==") == (
        "extraheader = AUTHORIZATION: basic [REDACTED]")
    assert redact('curl -H "Authorization: Bearer fakeFAKE1234.fake"') == (
        'curl -H "Authorization: Bearer [REDACTED]"')
    for key in ("sk-proj-Fake1Fake2Fake3Fake4Fake5", "sk-ant-api03-Fake1Fake2Fake3Fake4Fake5-FakeAA",
                "hf_FakeFakeFakeFakeFakeFakeFakeFake12", "AIzaFakeFakeFakeFakeFakeFakeFakeFake123",
                "github_pat_11FAKEFAKE0FakeFakeFakeFake_Fake"):
        assert redact(f"the key is {key}, keep it") == "the key is [REDACTED], keep it"
    # references and prose are not values
    for text in ('headers = {"Authorization": f"Bearer {token}"}', "Authorization: Bearer $TOKEN",
                 "the authorization: required for admins", "import sklearn  # sk-learn"):
        assert redact(text) == text
