"""What a reload on save remembers of a client's session and how it compares two servers' lists
(inspector/core/protocol/reload.py): no I/O, no server."""

from __future__ import annotations

import itertools
import json

from inspector.core.protocol.reload import (
    ID_PREFIX,
    MAX_PAGES,
    META_SUBSCRIPTION,
    ClientSession,
    Listing,
    changed_kinds,
    declaring_list_changed,
    dump,
    own_id,
    parse,
)

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}


def ids():
    counter = itertools.count(1)
    return lambda: f"{ID_PREFIX}{next(counter)}"


def client(session: ClientSession, message: dict) -> None:
    line = dump(message)
    session.from_client(line, parse(line))


def legacy_session() -> ClientSession:
    session = ClientSession()
    client(session, {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                     "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c"}}})
    session.from_server({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {"tools": {}, "prompts": {}}}})
    client(session, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return session


def modern_session() -> ClientSession:
    session = ClientSession()
    client(session, {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META}})
    session.from_server({"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {"tools": {}, "resources": {}}}})
    return session


def test_the_client_s_initialize_is_replayed_with_an_id_of_the_inspector_s_own_then_its_initialized():
    session = legacy_session()
    first, then = session.handshake(ids())
    replayed = json.loads(first)
    assert replayed["method"] == "initialize" and replayed["id"] == f"{ID_PREFIX}1"
    assert replayed["params"]["clientInfo"] == {"name": "c"}
    assert [json.loads(line)["method"] for line in then] == ["notifications/initialized"]
    assert session.capabilities == ["tools", "prompts"]
    assert not session.modern


def test_a_2026_client_s_discover_is_replayed_and_its_meta_goes_on_the_inspector_s_own_requests():
    session = modern_session()
    client(session, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": META}})
    first, then = session.handshake(ids())
    assert json.loads(first)["method"] == "server/discover" and then == []
    request_id, line = session.request("tools/list", {}, ids())
    assert json.loads(line)["params"]["_meta"] == META and request_id.startswith(ID_PREFIX)
    assert session.modern and session.capabilities == ["tools", "resources"]


def test_a_client_that_pinned_2026_without_discover_gets_a_discover_made_from_its_meta():
    session = ClientSession()
    client(session, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}})
    first, _then = session.handshake(ids())
    assert json.loads(first) == {"jsonrpc": "2.0", "id": f"{ID_PREFIX}1", "method": "server/discover",
                                 "params": {"_meta": META}}


def test_a_client_that_said_nothing_yet_has_no_handshake_to_replay():
    assert ClientSession().handshake(ids()) == (None, [])
    assert not ClientSession().known


def test_requests_the_server_has_not_answered_are_kept_in_order_and_answered_or_cancelled_ones_are_not():
    session = legacy_session()
    for request_id in (5, "a", 7):
        client(session, {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "x"}})
    session.from_server({"jsonrpc": "2.0", "id": 5, "result": {}})
    client(session, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
    taken = session.take_outstanding()
    assert [request_id for request_id, _line in taken] == ["a"]
    assert json.loads(taken[0][1])["id"] == "a" and taken[0][1].endswith(b"\n")
    assert session.take_outstanding() == []


def test_the_id_1_and_the_id_string_1_are_different_requests():
    session = legacy_session()
    client(session, {"jsonrpc": "2.0", "id": 1, "method": "ping"})
    client(session, {"jsonrpc": "2.0", "id": "1", "method": "ping"})
    session.from_server({"jsonrpc": "2.0", "id": "1", "result": {}})
    assert [request_id for request_id, _line in session.take_outstanding()] == [1]


def test_a_legacy_client_is_told_each_changed_kind_once():
    lines = legacy_session().changed_notifications(["tools", "resources"])
    assert [json.loads(line) for line in lines] == [
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
        {"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}]


def test_a_2026_client_is_told_only_on_the_streams_that_asked_carrying_each_stream_s_id():
    session = modern_session()
    client(session, {"jsonrpc": "2.0", "id": "s1", "method": "subscriptions/listen",
                     "params": {"_meta": META, "notifications": {"toolsListChanged": True}}})
    client(session, {"jsonrpc": "2.0", "id": "s2", "method": "subscriptions/listen",
                     "params": {"_meta": META, "notifications": {"resourceSubscriptions": ["file:///x"]}}})
    lines = session.changed_notifications(["tools", "prompts"])
    assert [json.loads(line) for line in lines] == [
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
         "params": {"_meta": {META_SUBSCRIPTION: "s1"}}}]


def test_a_2026_client_with_no_stream_is_told_nothing():
    assert modern_session().changed_notifications(["tools"]) == []


def test_a_new_server_s_acknowledgement_of_a_stream_the_client_already_had_is_not_passed_on():
    session = modern_session()
    client(session, {"jsonrpc": "2.0", "id": "s1", "method": "subscriptions/listen",
                     "params": {"_meta": META, "notifications": {"toolsListChanged": True}}})
    ack = {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
           "params": {"_meta": {META_SUBSCRIPTION: "s1"}, "notifications": {"toolsListChanged": True}}}
    assert session.from_server(ack) is True
    assert session.from_server(ack) is False
    assert session.from_server({"jsonrpc": "2.0", "method": "notifications/message", "params": {}}) is True


def test_answers_to_the_inspector_s_own_requests_are_recognised_and_the_client_s_are_not():
    assert own_id({"jsonrpc": "2.0", "id": f"{ID_PREFIX}3", "result": {}})
    assert not own_id({"jsonrpc": "2.0", "id": 3, "result": {}})
    assert not own_id({"jsonrpc": "2.0", "id": "reload-3", "result": {}})
    assert not own_id({"jsonrpc": "2.0", "id": f"{ID_PREFIX}3", "method": "sampling/createMessage"})


def answer(request: bytes, result: dict) -> dict:
    return {"jsonrpc": "2.0", "id": json.loads(request)["id"], "result": result}


def test_a_listing_follows_next_cursor_and_its_items_do_not_depend_on_order():
    listing = Listing(legacy_session(), ["tools"], ids())
    [first] = listing.start()
    assert json.loads(first)["method"] == "tools/list" and "params" not in json.loads(first)
    [second] = listing.answer(answer(first, {"tools": [{"name": "b"}], "nextCursor": "p2"}))
    assert json.loads(second)["params"] == {"cursor": "p2"}
    assert listing.answer(answer(second, {"tools": [{"name": "a"}]})) == []
    assert listing.done
    other = Listing(legacy_session(), ["tools"], ids())
    [only] = other.start()
    other.answer(answer(only, {"tools": [{"name": "a"}, {"name": "b"}]}))
    assert listing.items == other.items


def test_a_server_that_always_returns_a_cursor_is_listed_a_bounded_number_of_pages_then_counts_as_unknown():
    listing = Listing(legacy_session(), ["tools"], ids())
    pending = listing.start()
    pages = 0
    while pending:
        pages += 1
        pending = listing.answer(answer(pending[0], {"tools": [{"name": f"t{pages}"}], "nextCursor": "again"}))
    assert pages == MAX_PAGES and listing.done and listing.items == {"tools": None}


def test_an_error_or_no_answer_makes_a_kind_unknown():
    listing = Listing(legacy_session(), ["tools", "prompts"], ids())
    tools, _prompts = listing.start()
    listing.answer({"jsonrpc": "2.0", "id": json.loads(tools)["id"], "error": {"code": -1, "message": "no"}})
    listing.give_up()
    assert listing.items == {"tools": None, "prompts": None} and listing.done


def test_an_answer_to_no_pending_request_is_ignored():
    listing = Listing(legacy_session(), ["tools"], ids())
    listing.start()
    assert listing.answer({"jsonrpc": "2.0", "id": "other", "result": {"tools": []}}) == []
    assert not listing.done


def test_only_the_kinds_whose_lists_differ_have_changed():
    before = {"tools": ['{"name": "a"}'], "prompts": [], "resources": []}
    same = {"tools": ['{"name": "a"}'], "prompts": [], "resources": []}
    assert changed_kinds(before, same) == []
    assert changed_kinds(before, {**same, "tools": ['{"name": "a"}', '{"name": "b"}']}) == ["tools"]
    assert changed_kinds(before, {**same, "tools": ['{"description": "new", "name": "a"}']}) == ["tools"]


def test_a_kind_one_server_declares_and_the_other_does_not_has_changed_and_unknown_lists_count_as_changed():
    assert changed_kinds({"tools": []}, {"tools": [], "prompts": []}) == ["prompts"]
    assert changed_kinds({"tools": [], "prompts": []}, {"tools": []}) == ["prompts"]
    assert changed_kinds({"tools": None}, {"tools": []}) == ["tools"]
    assert changed_kinds({}, {}) == []


def test_with_no_lists_from_before_every_kind_the_new_server_declares_has_changed():
    assert changed_kinds(None, {"resources": [], "tools": []}) == ["tools", "resources"]


def test_the_handshake_answer_declares_list_changed_for_each_kind_the_server_has():
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {
        "tools": {"listChanged": False}, "prompts": {}, "logging": {}}, "serverInfo": {"name": "s", "version": "1"}}}
    declared = declaring_list_changed(answer)
    assert declared is not None
    assert declared["result"]["capabilities"] == {"tools": {"listChanged": True}, "prompts": {"listChanged": True},
                                                  "logging": {}}
    assert answer["result"]["capabilities"]["tools"] == {"listChanged": False}  # the server's answer is kept as is
    assert {key: value for key, value in declared["result"].items() if key != "capabilities"} == {
        "protocolVersion": "2025-11-25", "serverInfo": {"name": "s", "version": "1"}}


def test_a_handshake_answer_that_already_declares_list_changed_or_has_no_lists_is_left_alone():
    assert declaring_list_changed({"id": 1, "result": {"capabilities": {"tools": {"listChanged": True}}}}) is None
    assert declaring_list_changed({"id": 1, "result": {"capabilities": {"logging": {}}}}) is None
    assert declaring_list_changed({"id": 1, "error": {"code": -32602, "message": "no"}}) is None
