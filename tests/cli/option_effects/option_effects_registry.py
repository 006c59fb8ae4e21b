"""Which test proves that each documented option of record, call (and the other one-shot commands), replay,
check, tap and serve reaches its effect: one row per (command, option string), with the effect the test observes.

tests/cli/option_effects/test_option_registry.py walks the real parsers (``inspector.cli.main.build_parser``)
and fails for an option that has no row here, and for a row whose option or test no longer exists: a new option
makes the suite fail until a test proves what it does. docs/option-effects.md is this table, written by
scripts/option_effects.py (and checked by the same test).

The one-shot commands (tools, resources, templates, prompts, call, read, prompt, complete, request) share their
options (``add_connection_options``): those rows are under ``call``; an option a one-shot command has of its own
is under that command (complete's --prompt and --template).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

#: The commands whose options must each have a row (one-shot commands other than call: their own options only).
COMMANDS = ("record", "call", "replay", "check", "tap", "serve", "test-client")
ONESHOT_SHARED_WITH = "call"
#: Commands whose own options must each have a row: those ``call`` does not share (the options that reach a
#: server are add_server_options', proven through the commands above).
OWN_OPTIONS_OF = ("context", "add-to")

_TARGET = "tests/cli/option_effects/test_target_options.py::"
_RECORD = "tests/cli/option_effects/test_record_options.py::"
_ONESHOT = "tests/cli/option_effects/test_oneshot_options.py::"
_REPLAY = "tests/cli/option_effects/test_replay_options.py::"
_CHECK = "tests/cli/option_effects/test_check_options.py::"
_TAP = "tests/cli/option_effects/test_tap_options.py::"
_BENCH = "tests/cli/test_test_client_cmd.py::"
_BENCH_OPTIONS = "tests/cli/option_effects/test_test_client_options.py::"
_CONTEXT = "tests/context/test_context_cli.py::"
_ADD_TO = "tests/cli/test_add_to.py::"
_HTTP_TAP = "tests/tap/test_http_tap.py::"
_SERVE = "tests/cli/test_serve_cmd.py::"
_SERVE_LIVE = "tests/cli/option_effects/test_serve_options.py::test_socket_live_and_no_live_reach_the_window"
_PROGRESS = "tests/cli/test_record_progress_and_cancel.py::"
_MAX_MESSAGE = "tests/cli/test_max_message.py::"
_RECORD_ONE_RUN = f"{_RECORD}test_handshake_protocol_version_root_and_answer_reach_the_server"
_CALL_ONE_RUN = f"{_ONESHOT}test_json_handshake_protocol_version_root_answer_and_out_of_call_reach_the_terminal_and_" \
                "the_server"
_REPLAY_YES = f"{_REPLAY}test_yes_reruns_the_recorded_command_where_ignore_hides_what_changed_and_idle_3_keeps_a_" \
              "late_notification"
_CHECK_MARKDOWN = f"{_CHECK}test_report_call_tools_and_handshake_reach_the_report_and_the_server"
_CHECK_JSON = f"{_CHECK}test_format_call_all_tools_and_revision_reach_the_report_and_the_server"
_CHECK_REQUIREMENTS = f"{_CHECK}test_requirements_runs_one_revisions_set_and_a_sarif_report_comes_from_its_ending"
_SERVE = "tests/cli/test_serve_cmd.py::"
_SERVE_FAULTS = "tests/cli/test_serve_faults.py::"
_TAP_TWO_RUNS = f"{_TAP}test_capture_name_socket_no_live_and_no_redact_reach_the_capture_and_the_window"
_SERVE = "tests/cli/test_serve_cmd.py::"
_SERVE_LISTEN = "tests/cli/test_serve_listen.py::test_the_sdks_http_client_gets_the_same_tools_and_result_from_" \
                "the_served_capture"


@dataclass(frozen=True)
class Effect:
    command: str
    option: str
    effect: str  #: what the test observes, in a sentence
    test: str  #: the pytest node id of the test that proves it


_CONFIG = "tests/cli/test_config_server_option.py::"
_OAUTH_RECORD = "tests/auth/test_oauth_record_cli.py::"
_PRE_CLIENT = f"{_OAUTH_RECORD}test_a_pre_registered_client_secret_never_reaches_the_capture_or_the_output"
#: Where an existing test proves a target option through a command, it is registered instead of a new run:
#: (command, option) -> (effect, test).
_ELSEWHERE = {
    ("record", "--config"): ("the entry of the client config runs: the capture's spawned command is the entry's",
                             f"{_CONFIG}test_record_runs_the_config_entry_named_by_server"),
    ("record", "--server"): ("of the two entries, the one named runs (its server's answers are in the capture)",
                             f"{_CONFIG}test_record_runs_the_config_entry_named_by_server"),
    ("call", "--config"): ("the entry of the client config runs: its server's tool answers",
                           f"{_CONFIG}test_call_takes_the_server_from_the_config_too"),
    ("call", "--server"): ("of the two entries, the one named runs (only it has the tool called)",
                           f"{_CONFIG}test_call_takes_the_server_from_the_config_too"),
    ("record", "--client-id"): ("the pre-registered client signs in: the capture names it, and the run succeeds "
                                "against a server that knows only that client", _PRE_CLIENT),
    ("record", "--client-secret"): ("the token endpoint, which requires client_secret_basic with that secret, "
                                    "issues the token (the run succeeds); the secret is never in the capture",
                                    _PRE_CLIENT),
}


def _target_rows(command: str) -> list[Effect]:
    """The options that reach a server, proven through ``command`` by the parametrized tests of
    test_target_options.py (or by an existing test, :data:`_ELSEWHERE`)."""
    def row(option: str, effect: str, test: str) -> Effect:
        if (command, option) in _ELSEWHERE:
            return Effect(command, option, *_ELSEWHERE[command, option])
        return Effect(command, option, effect, f"{_TARGET}{test}[{command}]")

    stdio = "test_cwd_env_no_redact_and_max_message_reach_the_server_and_the_capture"
    http = "test_url_transport_headers_origin_and_bearer_reach_an_http_server"
    oauth = "test_oauth_with_scope_and_follow_signs_in_after_the_stale_bearer_of_bearer_env"
    client = "test_client_id_and_client_secret_are_the_pre_registered_client_that_signs_in"
    config = "test_config_and_server_run_the_named_entry_of_a_client_config"
    tls = "test_ca_file_trusts_a_self_signed_server_and_insecure_verifies_nothing"
    return [
        row("--cwd", "the server starts in that folder (its log)", stdio),
        row("--env", "the server sees the variable (its log)", stdio),
        row("--no-redact", "a secret variable of --env stays in the capture as given", stdio),
        row("--max-message", "with 10K, the server's 30 KB tools/list answer is a framing error naming the 10 KiB "
                             "limit", stdio),
        row("--url", "the HTTP server at that URL gets the session's requests", http),
        row("--transport", "with sse, the first request is the GET of the HTTP+SSE stream, then POSTs to its "
                           "endpoint", http),
        row("-H", "every request carries the header", http),
        row("--header", "every request carries the header", http),
        row("--origin", "every request carries that Origin", http),
        row("--bearer", "every request carries Authorization: Bearer TOKEN", http),
        row("--bearer-env", "the first request carries Authorization: Bearer with the variable's value", oauth),
        row("--oauth", "a 401 starts the OAuth flow: registration, authorization, token, and the request again "
                       "with the new token", oauth),
        row("--oauth-authorize", "with follow, the inspector fetches the authorization URL itself", oauth),
        row("--scope", "the authorization request asks for those scopes", oauth),
        row("--client-id", "the authorization request's client_id", client),
        row("--client-secret", "the token request authenticates with it (HTTP Basic, which the server requires)",
            client),
        row("--client-metadata-url", "the URL is the client_id (no registration) with a server that supports "
                                     "Client ID Metadata Documents",
            "test_client_metadata_url_is_the_client_id_where_the_server_supports_it"),
        row("--connect-timeout", "with 0.3, a connection that never completes is given up within seconds (not "
                                 "the default 10 s): 'no connection ... within the connect timeout'",
            "test_connect_timeout_bounds_a_connection_that_never_completes"),
        row("--ca-file", "the self-signed certificate in the file is trusted: the https server's answers come (the "
                         "same run without it fails: 'the server's certificate was refused'), and the capture's "
                         "header names the file", tls),
        row("--insecure", "the self-signed certificate is not verified: the answers come, stderr says once that "
                          "certificates are not verified, and the capture's header says \"insecure\": true", tls),
        row("--config", "the entry of the client config runs (with its env), its secret redacted in the "
                        "capture", config),
        row("--server", "the entry named runs, not the other one of the file", config),
    ]


_GRANTS = "tests/auth/test_oauth_grant_options.py::"
#: The grants without a person (issue 29): option -> (effect, test), proven through record.
_GRANT_OPTIONS = {
    "--oauth-grant": ("client-credentials: the token comes from the client credentials grant, no person asked",
                      "test_oauth_grant_client_credentials_gets_the_token_with_the_client_credentials_grant_and_no_"
                      "person"),
    "--client-key": ("the token request carries a private_key_jwt client assertion signed with the file's key",
                     "test_client_key_signs_a_private_key_jwt_client_assertion_with_the_key_in_the_file"),
    "--client-key-alg": ("the client assertion is signed with that algorithm",
                         "test_client_key_alg_picks_the_algorithm_the_client_assertion_is_signed_with"),
    "--assertion": ("the JWT is the jwt-bearer grant sent to the token endpoint",
                    "test_assertion_is_the_jwt_bearer_grant_sent_to_the_token_endpoint"),
    "--assertion-file": ("the file's JWT is sent as the grant",
                         "test_assertion_file_is_read_and_its_jwt_sent_as_the_grant"),
    "--id-token": ("the ID token is exchanged at the IdP for an ID-JAG",
                   "test_id_token_idp_token_endpoint_and_idp_client_id_make_the_token_exchange_at_the_idp"),
    "--idp-token-endpoint": ("the token exchange goes to that endpoint",
                             "test_id_token_idp_token_endpoint_and_idp_client_id_make_the_token_exchange_at_the_idp"),
    "--idp-client-id": ("the token exchange names that client (without it this IdP refuses it)",
                        "test_id_token_idp_token_endpoint_and_idp_client_id_make_the_token_exchange_at_the_idp"),
    "--id-token-file": ("the file's ID token is exchanged",
                        "test_id_token_file_and_idp_issuer_find_the_idp_token_endpoint_in_its_metadata"),
    "--idp-issuer": ("the IdP's token endpoint is found in that issuer's metadata",
                     "test_id_token_file_and_idp_issuer_find_the_idp_token_endpoint_in_its_metadata"),
    "--dpop": ("the token request carries a DPoP proof though the server did not ask for one (none without "
               "--dpop)",
               "test_dpop_sends_a_proof_to_a_server_that_did_not_ask_for_one"),
}


_GRANT_COMMANDS = "tests/cli/option_effects/test_grant_options.py::"
_JWT_BEARER = "test_jwt_bearer_with_assertion_client_key_alg_and_dpop_reaches_the_token_endpoint"
_JWT_BEARER_FILE = "test_jwt_bearer_with_assertion_file_sends_the_jwt_in_the_file"
_ID_JAG = "test_id_jag_with_id_token_idp_token_endpoint_and_idp_client_id_exchanges_at_that_endpoint"
_ID_JAG_FILE = "test_id_jag_with_id_token_file_and_idp_issuer_finds_the_token_endpoint_in_the_idp_metadata"
#: The same options proven through call, replay and check (test_grant_options.py, one run per command and test;
#: the tests of the file forms replay with --yes a capture naming the server): option -> (effect, test).
_COMMAND_GRANT_OPTIONS = {
    "--oauth-grant": ("jwt-bearer: the token request's grant is the JWT bearer grant (id-jag, a token exchange at "
                      "the IdP whose ID-JAG is that grant: the test of --id-token)", _JWT_BEARER),
    "--client-key": ("the token request carries a private_key_jwt client assertion of the client that verifies with "
                     "the key's public half (the server, which trusts only that key, issues the token)", _JWT_BEARER),
    "--client-key-alg": ("with PS256, the client assertion is signed PS256 (RS256 without the option)", _JWT_BEARER),
    "--assertion": ("the JWT is the assertion of the JWT bearer grant", _JWT_BEARER),
    "--dpop": ("the token request carries a DPoP proof for it (POST to the token endpoint) though the server did "
               "not ask for one; no proof without --dpop", _JWT_BEARER),
    "--assertion-file": ("the file's JWT, without the blank around it, is the grant", _JWT_BEARER_FILE),
    "--id-token": ("the ID token is the subject_token of the token exchange at the IdP", _ID_JAG),
    "--idp-token-endpoint": ("the token exchange goes to that endpoint; the IdP's metadata is never fetched", _ID_JAG),
    "--idp-client-id": ("the token exchange names that client (this IdP refuses an exchange without it)", _ID_JAG),
    "--id-token-file": ("the file's ID token is the subject_token of the exchange", _ID_JAG_FILE),
    "--idp-issuer": ("the IdP's token endpoint is read from that issuer's OpenID metadata, before the exchange",
                     _ID_JAG_FILE),
}
#: The tests whose replay run is ``replay --yes`` of a capture naming the server (no --url).
_REPLAY_YES_TESTS = {_JWT_BEARER_FILE, _ID_JAG_FILE}


def _grant_rows(command: str) -> list[Effect]:
    if command == "record":
        return [Effect(command, option, effect, f"{_GRANTS}{test}")
                for option, (effect, test) in _GRANT_OPTIONS.items()]
    rows = []
    for option, (effect, test) in _COMMAND_GRANT_OPTIONS.items():
        param = command
        if command == "replay":
            yes = test in _REPLAY_YES_TESTS
            param, effect = ("replay-yes" if yes else "replay"), effect + (
                " (replay --yes of a capture naming the server)" if yes else " (replay --url)")
        rows.append(Effect(command, option, effect, f"{_GRANT_COMMANDS}{test}[{param}]"))
    return rows


def _timeout_row(command: str, effect: str) -> Effect:
    return Effect(command, "--timeout", effect,
                  f"{_TARGET}test_timeout_turns_a_slow_answer_into_a_timeout_naming_it[{command}]")


EFFECTS: list[Effect] = [
    # -- record ----------------------------------------------------------------------------------------------
    *_target_rows("record"),
    *_grant_rows("record"),
    Effect("record", "--out", "the capture holds the session, the server's answer included", _RECORD_ONE_RUN),
    Effect("record", "--otlp-endpoint", "each request reaches an OTLP/HTTP receiver as a span (POST /v1/traces, "
                                        "protobuf), in the trace and under the span its _meta traceparent names",
           "tests/otel/test_otlp_export.py::test_record_sends_a_span_per_request_live_to_the_otlp_receiver"),
    Effect("record", "--rules", "a rule rewriting the echo tool's argument: the server echoes the changed text, and "
                                "the capture holds the original and the changed request, marked with the rule",
           "tests/cli/test_record_rules.py::test_a_rewritten_request_reaches_the_server_changed_and_its_answer_says_so"),
    Effect("record", "--send", "the file's request reaches the server", _RECORD_ONE_RUN),
    Effect("record", "--handshake", "legacy: the server gets initialize first, never server/discover", _RECORD_ONE_RUN),
    Effect("record", "--protocol-version", "initialize asks the server for that revision", _RECORD_ONE_RUN),
    Effect("record", "--root", "the server's roots/list is answered with that root", _RECORD_ONE_RUN),
    Effect("record", "--answer", "the server's elicitation is declined and its sampling request answered with "
                                 "the text given", _RECORD_ONE_RUN),
    Effect("record", "--idle", "with 3, a notification 1.5 s after the last answer is in the capture (with 0.2 "
                               "it is not: test_idle_0_2_ends_the_session_before_that_notification)",
           f"{_RECORD}test_idle_3_keeps_a_notification_sent_1_5_s_after_the_last_answer"),
    Effect("record", "--timeout", "with 1, a 2 s call ends in exit 4 and 'no response to tools/call within 1 s'",
           f"{_PROGRESS}test_without_progress_the_same_call_times_out_and_is_cancelled"),
    Effect("record", "--progress", "the call carries a progressToken, and its progress keeps it alive past "
                                   "--timeout",
           f"{_PROGRESS}test_progress_every_400_ms_keeps_a_2_s_call_alive_under_a_1_s_timeout"),
    Effect("record", "--max-time", "with 1.5, a call that keeps reporting progress ends in exit 4 and 'within "
                                   "1.5 s in all'",
           f"{_PROGRESS}test_max_time_ends_a_request_that_keeps_reporting_progress"),
    # -- call (and the other one-shot commands) --------------------------------------------------------------
    *_target_rows("call"),
    *_grant_rows("call"),
    _timeout_row("call", "with 0.5, a tool that answers after 5 s ends in exit 4 and 'no response to "
                         "tools/call within 0.5 s'"),
    Effect("call", "--json", "one line of JSON on a terminal (indented without it: "
                             "test_args_go_under_the_words_and_a_terminal_gets_indented_json_without_json)",
           _CALL_ONE_RUN),
    Effect("call", "--text", "only the result's text is printed",
           f"{_ONESHOT}test_text_prints_only_the_text_of_the_result"),
    Effect("call", "--out", "the capture holds the session, the tools/call included", _CALL_ONE_RUN),
    Effect("call", "--handshake", "legacy: the server gets initialize first, never server/discover", _CALL_ONE_RUN),
    Effect("call", "--protocol-version", "initialize asks the server for that revision", _CALL_ONE_RUN),
    Effect("call", "--root", "the server's roots/list is answered with the folder's file:// URI", _CALL_ONE_RUN),
    Effect("call", "--answer", "the server's elicitation is accepted with the schema's defaults and its sampling "
                               "request answered with the text given", _CALL_ONE_RUN),
    Effect("call", "--args", "the tool gets the JSON object's arguments, KEY=VALUE words over them",
           f"{_ONESHOT}test_args_go_under_the_words_and_a_terminal_gets_indented_json_without_json"),
    Effect("call", "--task", "a tool whose taskSupport is optional is called with params.task, followed with "
                             "tasks/get and tasks/result, and the task's result printed (without it: a plain call)",
           f"{_ONESHOT}test_task_runs_an_optional_tool_as_a_task_and_prints_its_result"),
    Effect("listen", "--for", "with 1.5, listen ends by itself after 1.5 s (exit 0), its stream acknowledged",
           "tests/core/test_subscriptions.py::test_listen_prints_each_notification_as_a_json_line_and_stops_after_for"),
    Effect("listen", "--resource", "the subscriptions/listen filter asks for updates of that URI, as the server's "
                                   "acknowledgement (the first line printed) says",
           "tests/core/test_subscriptions.py::test_listen_prints_each_notification_as_a_json_line_and_stops_after_for"),
    Effect("complete", "--prompt", "completion/complete names that prompt (ref/prompt)",
           f"{_ONESHOT}test_complete_prompt_asks_about_an_argument_of_that_prompt"),
    Effect("complete", "--template", "completion/complete names that resource template (ref/resource)",
           f"{_ONESHOT}test_complete_template_asks_about_a_variable_of_that_resource_template"),
    # -- replay ----------------------------------------------------------------------------------------------
    *_target_rows("replay"),
    *_grant_rows("replay"),
    _timeout_row("replay", "with 0.5, an answer 5 s late is 'no response to ping within 0.5 s'"),
    Effect("replay", "--out", "the replay's capture is written there", _REPLAY_YES),
    Effect("replay", "--yes", "without a target, the command the capture names runs again (the server's log)",
           _REPLAY_YES),
    Effect("replay", "--ignore", "an answer whose text now differs still matches (exit 0)", _REPLAY_YES),
    Effect("replay", "--idle", "with 3, a notification 1.5 s after the last answer is in the replay (with 0.2 it is "
                               "not: test_idle_0_2_ends_the_replay_before_the_late_notification)", _REPLAY_YES),
    # -- check -----------------------------------------------------------------------------------------------
    *_target_rows("check"),
    *_grant_rows("check"),
    _timeout_row("check", "with 0.5, the ping check fails: no answer within 0.5 s"),
    Effect("check", "--report", "the report is written to that file, the captures beside it", _CHECK_MARKDOWN),
    Effect("check", "--format", "json: a JSON report, whatever the file's ending", _CHECK_JSON),
    Effect("check", "--call-tools", "the read-only tools are called, the others not", _CHECK_MARKDOWN),
    Effect("check", "--call-all-tools", "a tool that is not read-only is called too", _CHECK_JSON),
    Effect("check", "--handshake", "legacy: the server gets initialize first, never server/discover", _CHECK_MARKDOWN),
    Effect("check", "--revision", "initialize asks for that revision, never the default one", _CHECK_JSON),
    Effect("check", "--requirements", "2025-11-25: initialize asks for it alone, and the report's checks are "
                                      "exactly its required set for stdio (no batch, no HTTP rule)",
           _CHECK_REQUIREMENTS),
    # -- tap -------------------------------------------------------------------------------------------------
    Effect("tap", "--capture", "the capture is written to that file", _TAP_TWO_RUNS),
    Effect("tap", "--name", "the window's hello and the capture's header carry that name", _TAP_TWO_RUNS),
    Effect("tap", "--socket", "a window listening on that socket gets the tap's hello", _TAP_TWO_RUNS),
    Effect("tap", "--no-live", "the window listening on --socket never gets a connection", _TAP_TWO_RUNS),
    Effect("tap", "--no-redact", "a secret of the server's command line stays in the capture (redacted without "
                                 "it)", _TAP_TWO_RUNS),
    Effect("tap", "--rules", "stdio: the SDK's own client prints the answer a rewrite rule made, and the capture "
                             "holds the server's original and the changed answer, marked with the rule",
           "tests/tap/test_tap_rules.py::test_the_sdk_client_through_the_stdio_tap_with_a_rewrite_rule_prints_the_"
           "rewritten_answer"),
    Effect("tap", "--url", "a real client (the SDK's) works unchanged through the tap's local URL against the server "
                           "at that URL, and the capture holds both directions",
           f"{_HTTP_TAP}test_the_sdk_client_works_unchanged_through_the_tap_against_an_sdk_server_over_streamable_"
           "http"),
    Effect("tap", "--listen", "the tap listens there (127.0.0.1 or ::1 only) while it runs, and nowhere before or "
                              "after", f"{_HTTP_TAP}test_the_tap_listens_only_on_127_0_0_1_while_it_runs_and_nothing_"
                                       "listens_before_or_after"),
    Effect("tap", "--transport", "sse: the endpoint event reaches the client rewritten to the tap's own address, so "
                                 "its POSTs come through the tap",
           f"{_HTTP_TAP}test_an_sse_tap_gives_the_client_an_absolute_endpoint_on_the_tap_so_its_messages_come_"
           "through"),
    Effect("tap", "--ca-file", "the tap relays to an https server whose self-signed certificate is in the file (the "
                               "client gets its answers; without the option it gets 502, the certificate refused)",
           f"{_HTTP_TAP}test_ca_file_lets_the_tap_reach_a_self_signed_server_it_refuses_without_it"),
    Effect("tap", "--insecure", "the tap relays to that server without verifying its certificate; stderr says so "
                                "once and the capture's header says \"insecure\": true",
           f"{_HTTP_TAP}test_insecure_lets_the_tap_reach_a_self_signed_server_and_the_capture_says_so"),
    Effect("tap", "--otlp-endpoint", "the relayed tools/call reaches an OTLP/HTTP receiver as a span (decoded with "
                                     "opentelemetry-proto)",
           f"{_TAP}test_otlp_endpoint_sends_the_relayed_call_as_a_span_to_the_collector"),
    Effect("tap", "--max-message", "with 100K, a 200 KB answer is relayed whole and recorded as a framing error "
                                   "keeping its head and tail",
           f"{_MAX_MESSAGE}test_tap_relays_a_message_over_max_message_whole_and_records_its_head_and_tail"),
    Effect("tap", "--watch", "stdio: the SDK's own client, still in its session, gets tools/list_changed after the "
                             "server's file gains a tool and lists it; the capture shows two starts and a reloading "
                             "event naming the file",
           "tests/tap/test_tap_watch.py::test_a_tool_added_to_the_watched_server_appears_in_the_same_session_and_the_"
           "capture_shows_two_starts"),
    Effect("tap", "--watch-ignore", "with *.log, a log file written beside the server restarts nothing: the one "
                                    "reload names only server.py",
           "tests/tap/test_tap_watch.py::test_a_change_to_an_ignored_file_restarts_nothing_and_the_reload_names_only_"
           "the_server_s_file"),
    Effect("serve", "--match", "sequential: four requests the capture never saw get its three recorded answers in "
                               "recorded order, then an error saying all were given",
           f"{_SERVE}test_sequential_answers_in_recorded_order_whatever_comes"),
    Effect("serve", "--out", "the served session is a capture: the client's messages, the twin's answers each with "
                             "the seq of the recorded answer it came from, the unmatched request flagged",
           f"{_SERVE}test_out_records_the_served_session_with_the_recorded_answers_and_the_unmatched_flagged"),
    Effect("serve", "--max-message", "with 1K, a 5 KB request is answered as an invalid request and the next one as "
                                     "recorded",
           f"{_SERVE}test_a_line_over_max_message_is_an_invalid_request"),
    Effect("serve", "--fault", "latency=300: the served call's answer is recorded at least 300 ms after the request; "
                               "each other fault has its own test beside it (error-rate, junk, drop, close-after, "
                               "oversize, list-changed)",
           f"{_SERVE_FAULTS}test_latency_holds_each_answer_and_out_records_when_it_went"),
    Effect("serve", "--seed", "with error-rate=0.5, the same seed fails the same ones of 20 calls again (some fail, "
                              "some do not)",
           f"{_SERVE_FAULTS}test_a_seed_makes_the_same_answers_fail_again"),
    Effect("serve", "--rules", "a c2s rewrite makes the call match the recorded one and an s2c rewrite changes the "
                               "text our call prints; --out holds the originals and the changed messages, marked",
           f"{_SERVE_FAULTS}test_rules_rewrite_what_the_twin_matches_and_what_it_sends_and_out_keeps_the_marks"),
    Effect("serve", "--live", "a window listening on --socket gets the served session's hello (role serve) and its "
                              "events, the unmatched call with its finding", _SERVE_LIVE),
    Effect("serve", "--no-live", "the window listening on --socket never gets a connection", _SERVE_LIVE),
    Effect("serve", "--socket", "the served session streams to the window listening on that socket", _SERVE_LIVE),
    Effect("serve", "--listen", "the capture is served over HTTP there (its URL the line on stdout): the SDK's "
                                "own client gets the tools and the call's result the demo gave; 0.0.0.0, a LAN "
                                "address or a host name is one sentence and exit 2 "
                                "(test_listen_on_anything_but_loopback_is_one_sentence_and_exit_2_before_anything_"
                                "listens)", f"{_SERVE_LISTEN}[streamable-http]"),
    Effect("serve", "--transport", "sse: the URL ends in /sse, its first event names the endpoint to POST to, and "
                                   "the SDK's HTTP+SSE client gets the demo's answers on the stream (websocket: "
                                   "test_our_call_over_websocket_gets_from_the_served_capture_what_the_demo_answered)",
           f"{_SERVE_LISTEN}[sse]"),
    # -- test-client -----------------------------------------------------------------------------------------
    Effect("test-client", "--scenario", "only the scenarios named run, in that order: the JUnit report has one "
                                        "testcase each",
           f"{_BENCH}test_junit_is_xml_with_one_testcase_per_scenario_and_crash_ends_without_a_hang"),
    Effect("test-client", "--list-scenarios", "every scenario is printed with what it checks; nothing runs",
           f"{_BENCH_OPTIONS}test_list_scenarios_prints_every_scenario_with_what_it_checks_and_runs_nothing"),
    Effect("test-client", "--transport", "http: the SDK's client is given the URL of a scenario server on "
                                         "127.0.0.1 (the capture's header) and passes handshake, ping and crash",
           f"{_BENCH}test_the_python_sdks_client_passes_handshake_ping_and_crash_over_http"),
    Effect("test-client", "--revision", "the scenario server answers initialize with that revision (the capture), "
                                        "though the client asked for 2025-11-25",
           f"{_BENCH_OPTIONS}test_revision_is_what_the_scenario_server_answers_and_format_json_goes_to_stdout"),
    Effect("test-client", "--timeout", "with 3, a client that never ends is stopped after 3 s with everything it "
                                       "started, and the check ended says so",
           f"{_BENCH}test_a_client_that_hangs_is_stopped_at_the_timeout_with_everything_it_started"),
    Effect("test-client", "--format", "json: the report on stdout is JSON, its scenario naming its capture",
           f"{_BENCH_OPTIONS}test_revision_is_what_the_scenario_server_answers_and_format_json_goes_to_stdout"),
    Effect("test-client", "--report", "the report is written there (JUnit from .xml) and the captures beside it, "
                                      "in REPORT-captures/",
           f"{_BENCH}test_junit_is_xml_with_one_testcase_per_scenario_and_crash_ends_without_a_hang"),
    # -- context (its own options; the server options are those of record and call) -------------------------
    Effect("context", "--capture", "the listing comes from the capture, offline: the same tools, prompts, templates, "
                                   "instructions and totals as the live session it recorded",
           f"{_CONTEXT}test_a_capture_of_the_session_costs_and_lints_the_same_offline"),
    Effect("context", "--format", "json: one object with the tokenizer, totals, tools (tokens and bytes each) and "
                                  "findings (rule, tool, field, span)",
           f"{_CONTEXT}test_the_poisoned_server_gets_a_finding_on_each_poisoned_tool_and_none_on_its_honest_ones"),
    Effect("context", "--report", "the report is written to the file, SARIF from its .sarif ending, and validates "
                                  "against the SARIF 2.1.0 schema",
           f"{_CONTEXT}test_the_poisoned_server_s_sarif_validates_against_sarif_2_1_0_with_a_result_per_finding"),
    Effect("context", "--budget", "with 50, exit 10 and one sentence naming the total, the tokeniser and the budget",
           f"{_CONTEXT}test_over_the_budget_exits_10_with_one_sentence_naming_the_total_and_the_tokeniser"),
    Effect("context", "--tokenizer", "o200k_base, cl100k_base and bytes count the same listing differently (the "
                                     "bytes alike) and each report names its tokeniser",
           f"{_CONTEXT}test_the_tokenizer_option_changes_the_counts_and_every_format_names_it"),
    # -- add-to (its own options; --config, a file named instead of the client's usual one, is shared with call)
    Effect("add-to", "--project", "claude-code: the seat goes into the current folder's .mcp.json (typed stdio), not "
                                  "~/.claude.json",
           f"{_ADD_TO}test_windsurf_and_claude_codes_project_file_get_the_seat_in_their_own_place"),
    Effect("add-to", "--name", "the seat is added under that name beside a server that already had the default name",
           f"{_ADD_TO}test_a_server_of_the_same_name_that_is_not_the_seat_is_never_replaced"),
    Effect("add-to", "--remove", "the seat's entry is cut out and the file is byte for byte what it was before "
                                 "add-to; a second --remove says it is not there",
           f"{_ADD_TO}test_remove_takes_the_seat_out_leaving_the_file_as_it_was_before_add_to"),
    Effect("add-to", "--dry-run", "the diff is printed; the file and its folder are as they were, no backup",
           f"{_ADD_TO}test_dry_run_prints_the_diff_and_touches_nothing"),
    Effect("add-to", "--yes", "the file is written without a question, a backup of the previous one beside it "
                              "(without it and no terminal: exit 2, nothing written)",
           f"{_ADD_TO}test_add_to_writes_the_seat_into_the_users_cursor_config_keeping_every_other_byte_and_a_backup"),
]


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def option_strings(parser: argparse.ArgumentParser) -> list[str]:
    """Every option string of ``parser`` (-H and --header both), in the order of --help, without -h/--help."""
    return [s for action in parser._actions for s in action.option_strings if s not in ("-h", "--help")]


def documented_options(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    """(command, option) for every option that must have a row: all of record, call, replay, check, tap and serve;
    of the other one-shot commands, those call does not have."""
    """(command, option) for every option that must have a row: all of record, call, replay, check and tap;
    of the other one-shot commands and of :data:`OWN_OPTIONS_OF`, those call does not have."""
    commands = subparsers(parser)
    wanted = [(name, option) for name in COMMANDS for option in option_strings(commands[name])]
    shared = set(option_strings(commands[ONESHOT_SHARED_WITH]))
    for name, sub in commands.items():
        if name != ONESHOT_SHARED_WITH and (sub.get_default("oneshot") or name in OWN_OPTIONS_OF):
            wanted += [(name, option) for option in option_strings(sub) if option not in shared]
    return wanted
