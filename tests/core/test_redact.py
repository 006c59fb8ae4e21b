"""Redaction of secrets in what captures save: environment, headers, URLs and command lines."""

from __future__ import annotations

import pytest

from inspector.core.redaction import (
    REDACTED,
    is_secret_name,
    redact_argv,
    redact_env,
    redact_headers,
    redact_url,
)

# -- environment ------------------------------------------------------------------------------------------

SECRET_ENV = ["GITHUB_TOKEN", "OPENAI_API_KEY", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY", "ANTHROPIC_API_KEY",
              "GITHUB_PERSONAL_ACCESS_TOKEN", "SLACK_BOT_TOKEN", "AWS_ACCESS_KEY_ID", "PGPASSWORD", "API_KEY",
              "APIKEY", "STRIPE_KEY", "GITLAB_PAT", "MYSQL_PWD", "GOOGLE_APPLICATION_CREDENTIALS",
              "JWT_SIGNING_PRIVATE_KEY", "github_token"]
PLAIN_ENV = ["PATH", "HOME", "LANG", "USER", "SHELL", "TERM", "LOGNAME", "TZ", "PYTHONPATH", "NODE_OPTIONS",
             "LC_ALL", "VIRTUAL_ENV", "MEMORY_FILE_PATH", "PORT", "KEYBOARD_LAYOUT", "MONKEY"]


@pytest.mark.parametrize("name", SECRET_ENV)
def test_secret_looking_environment_values_are_redacted(name):
    assert redact_env({name: "s3cr3t-value"}) == {name: REDACTED}


@pytest.mark.parametrize("name", PLAIN_ENV)
def test_ordinary_environment_values_are_kept(name):
    assert redact_env({name: "/usr/bin:/bin"}) == {name: "/usr/bin:/bin"}


def test_redact_env_keeps_names_and_order_and_does_not_touch_the_input():
    env = {"PATH": "/bin", "GITHUB_TOKEN": "ghp_abc", "HOME": "/root", "DB_PASSWORD": "hunter2", "LANG": "C.UTF-8"}
    original = dict(env)
    redacted = redact_env(env)
    assert env == original
    assert list(redacted) == list(env)
    assert redacted == {"PATH": "/bin", "GITHUB_TOKEN": REDACTED, "HOME": "/root", "DB_PASSWORD": REDACTED,
                        "LANG": "C.UTF-8"}
    assert "ghp_abc" not in str(redacted) and "hunter2" not in str(redacted)


def test_an_empty_secret_stays_empty_so_the_user_sees_it_was_unset():
    assert redact_env({"GITHUB_TOKEN": ""}) == {"GITHUB_TOKEN": ""}


def test_credentials_inside_a_url_valued_variable_are_redacted():
    env = {"DATABASE_URL": "postgresql://app:s3cret@db.internal:5432/app", "HTTP_PROXY": "http://bob:pw@proxy:3128"}
    redacted = redact_env(env)
    assert "s3cret" not in str(redacted)
    assert "bob:pw" not in str(redacted)
    assert "db.internal:5432" in redacted["DATABASE_URL"]  # the rest stays useful


@pytest.mark.parametrize("name", ["PWD", "OLDPWD", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "TOKENIZERS_PARALLELISM"])
def test_common_non_secret_variables_are_kept(name):
    assert redact_env({name: "value"}) == {name: "value"}


# -- headers ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["Authorization", "authorization", "AUTHORIZATION", "Proxy-Authorization", "Cookie",
                                  "Set-Cookie", "X-Api-Key", "X-Auth-Token", "Api-Key", "X-Goog-Api-Key"])
def test_secret_headers_are_redacted_whatever_their_case(name):
    assert redact_headers({name: "Bearer abc.def"}) == {name: REDACTED}


@pytest.mark.parametrize("name", ["Accept", "Content-Type", "User-Agent", "MCP-Protocol-Version", "Origin", "Host"])
def test_ordinary_headers_are_kept(name):
    assert redact_headers({name: "application/json"}) == {name: "application/json"}


def test_redact_headers_returns_a_copy():
    headers = {"Authorization": "Bearer t", "Accept": "text/event-stream"}
    assert redact_headers(headers) == {"Authorization": REDACTED, "Accept": "text/event-stream"}
    assert headers["Authorization"] == "Bearer t"


# -- URLs -------------------------------------------------------------------------------------------------


def test_url_user_and_password_are_redacted_and_the_rest_is_kept():
    url = redact_url("https://alice:s3cret@mcp.example.com:8443/sse?x=1#frag")
    assert "alice" not in url and "s3cret" not in url
    assert url == f"https://{REDACTED}@mcp.example.com:8443/sse?x=1#frag"


def test_a_url_with_only_a_user_token_is_redacted():
    assert redact_url("https://ghp_abc@github.com/x") == f"https://{REDACTED}@github.com/x"


@pytest.mark.parametrize("param", ["token", "access_token", "api_key", "apikey", "key", "signature",
                                   "password", "auth"])
def test_secret_query_parameters_are_redacted_and_others_kept(param):
    url = redact_url(f"http://127.0.0.1:3000/messages/?{param}=s3cret&page=2")
    assert "s3cret" not in url
    assert "page=2" in url
    assert url.startswith("http://127.0.0.1:3000/messages/?")
    assert "redacted" in url


def test_a_url_without_secrets_is_returned_unchanged():
    for url in ["http://127.0.0.1:8000/mcp", "http://localhost/sse?a=1&b=%20x", "/messages/?q", "not a url"]:
        assert redact_url(url) == url


def test_an_unparseable_url_is_returned_as_is_instead_of_raising():
    assert redact_url("http://[::1") == "http://[::1"


# -- command lines ----------------------------------------------------------------------------------------


def test_the_value_after_a_secret_flag_is_redacted():
    argv = ["server", "--token", "ghp_abc", "--port", "8080"]
    assert redact_argv(argv) == ["server", "--token", REDACTED, "--port", "8080"]


def test_the_value_inside_a_secret_flag_with_equals_is_redacted():
    assert redact_argv(["server", "--api-key=sk-123", "--name=demo"]) == ["server", f"--api-key={REDACTED}",
                                                                           "--name=demo"]


@pytest.mark.parametrize("flag", ["--token", "--api-key", "--api_key", "--apikey", "--password", "--secret",
                                  "--client-secret", "--access-token", "-token", "--github-pat"])
def test_secret_flags_are_recognised_in_both_forms(flag):
    assert redact_argv([flag, "v1"]) == [flag, REDACTED]
    assert redact_argv([f"{flag}=v2"]) == [f"{flag}={REDACTED}"]


def test_a_secret_flag_at_the_end_has_nothing_to_hide():
    assert redact_argv(["server", "--token"]) == ["server", "--token"]


def test_a_url_argument_with_credentials_is_redacted():
    assert redact_argv(["mcp-remote", "https://u:pw@host/mcp"]) == ["mcp-remote", f"https://{REDACTED}@host/mcp"]


def test_ordinary_arguments_are_kept_and_the_input_is_not_changed():
    argv = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp/dir", "--verbose", "-p", "3000"]
    before = list(argv)
    assert redact_argv(argv) == argv
    assert argv == before


def test_credentials_in_a_url_given_with_equals_are_redacted():
    out = redact_argv(["server", "--url=https://alice:s3cret@host/mcp"])
    assert "s3cret" not in " ".join(out)


@pytest.mark.parametrize("argv", [["docker", "run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN=ghp_s3cret",
                                   "ghcr.io/github/github-mcp-server"],
                                  ["env", "OPENAI_API_KEY=sk-s3cret", "python", "server.py"]])
def test_secret_assignments_in_arguments_are_redacted(argv):
    assert "s3cret" not in " ".join(redact_argv(argv))


def test_a_secret_header_passed_as_an_argument_is_redacted():
    argv = ["npx", "mcp-remote", "https://example.com/mcp", "--header", "Authorization: Bearer s3cret"]
    assert "s3cret" not in " ".join(redact_argv(argv))


# -- names ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["token", "x-auth-token", "client_secret", "passwd", "private-key", "credentials",
                                  "bearer", "key", "my_key", "pat"])
def test_secret_names(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["Mcp-Session-Id", "session_id", "sessionId"])
def test_mcp_session_ids_are_kept_because_a_changing_or_lost_session_is_what_users_debug(name):
    assert not is_secret_name(name)
    assert "abc123" in redact_url(f"http://127.0.0.1:3000/messages/?{name}=abc123")


@pytest.mark.parametrize("name", ["path", "home", "port", "keyboard", "name", "patch", "url", "verbose"])
def test_non_secret_names(name):
    assert not is_secret_name(name)
