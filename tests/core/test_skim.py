"""Big lines classified by skimming (inspector/core/wire/skim.py, issue 17): the decoder's verdict on a line over
1 MB is the full parse's, whatever the line holds, and a valid one is classified without building it."""

from __future__ import annotations

import json
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.wire import framing, skim
from inspector.core.wire.events import Direction, Kind
from inspector.core.wire.framing import BIG_LINE_BYTES, LineDecoder, decode_line

#: a string member big enough to put the line over the skim threshold
PAD = b'"' + b"p" * (BIG_LINE_BYTES + 10) + b'"'


def full_parse(line: bytes, eol: bytes = b"\n"):
    """The verdict of the full parse (what the decoder said of every line before skimming)."""
    return framing._decode_slowly(line, eol, Direction.S2C)


def verdict(event):
    return event.kind, event.reason, event.rpc, list(event.findings), dict(event.data), event.raw, event.eol


def big(template: bytes) -> bytes:
    """``template`` with PAD in place of ``@``."""
    line = template.replace(b"@", PAD)
    assert len(line) > BIG_LINE_BYTES
    return line


# valid messages: the skim must classify them (no full parse) and agree with it
VALID = {
    "a result": b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":@}]}}',
    "the big string first": b'{"result":@,"jsonrpc":"2.0","id":"a"}',
    "a method key nested before the top-level ones": b'{"result":{"method":"tools/call","id":99,"x":@},'
                                                     b'"jsonrpc":"2.0","id":1}',
    "a nested error before the top-level method": b'{"params":{"error":{"code":"x"},"t":@},"method":"a/b",'
                                                  b'"jsonrpc":"2.0","id":2}',
    "a key written with escapes": b'{"jsonrpc":"2.0","\\u006dethod":"tools/call","id":3,"params":@}',
    "escapes in the classified values": b'{"jsonrpc":"2.0","method":"a\\"b\\\\c\\u00e9\\ud83d\\ude00","id":"\\n",'
                                        b'"params":[@]}',
    "escapes and quotes inside the big string": b'{"jsonrpc":"2.0","id":1,"result":"\\"method\\":\\"x\\"" ,"r":@}',
    "whitespace everywhere": b'{ "jsonrpc" :\t"2.0" , "id"\r: 1 ,"result" : [ @ , { } , [ ] ] }  \t',
    "duplicate ids: the last wins": b'{"jsonrpc":"2.0","id":1,"result":@,"id":"two"}',
    "duplicate methods: the last wins": b'{"jsonrpc":"2.0","method":"a","params":@,"method":5}',
    "a method and a result": b'{"jsonrpc":"2.0","id":1,"method":"x","result":@}',
    "a float id": b'{"jsonrpc":"2.0","id":1.5e0,"result":@}',
    "a boolean id": b'{"jsonrpc":"2.0","id":true,"result":@}',
    "a null id": b'{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"m"},"data":@}',
    "a bad error object": b'{"jsonrpc":"2.0","id":4,"error":{"code":1.5},"x":@}',
    "a wrong version": b'{"jsonrpc":"1.0","id":4,"result":@}',
    "no version": b'{"id":4,"result":@}',
    "neither request nor response": b'{"pad":@}',
    "a notification": b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":@}}',
    "numbers of every shape": b'{"jsonrpc":"2.0","id":-0,"result":[0,-1,2.5,-3e+10,4E-2,1e400,@,true,false,null]}',
    "non-ASCII text": b'{"jsonrpc":"2.0","id":1,"result":["\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",@]}',
    "a lone surrogate escape": b'{"jsonrpc":"2.0","id":1,"result":["\\ud800",@]}',
    "DEL is not a control character": b'{"jsonrpc":"2.0","id":1,"result":["\x7f",@]}',
}

# not valid JSON (or not what the decoder accepts): the skim must give up, the full parse says exactly why
INVALID = {
    "an unclosed object at the end": b'{"jsonrpc":"2.0","id":1,"result":@',
    "extra text at the end": b'{"jsonrpc":"2.0","id":1,"result":@}x',
    "a second value at the end": b'{"jsonrpc":"2.0","id":1,"result":@} {"a":1}',
    "a trailing comma in the object": b'{"jsonrpc":"2.0","id":1,"result":@,}',
    "a trailing comma in an array": b'{"jsonrpc":"2.0","id":1,"result":[@,]}',
    "a missing colon": b'{"jsonrpc":"2.0","id" 1,"result":@}',
    "a missing comma": b'{"jsonrpc":"2.0" "id":1,"result":@}',
    "NaN": b'{"jsonrpc":"2.0","id":1,"result":[@,NaN]}',
    "-Infinity": b'{"jsonrpc":"2.0","id":1,"result":[@,-Infinity]}',
    "a raw control character at the end of the big string": b'{"jsonrpc":"2.0","id":1,"result":"' + PAD[1:-1]
                                                            + b'\x01"}',
    "a tab inside a string": b'{"jsonrpc":"2.0","id":1,"result":["a\tb",@]}',
    "a bad escape": b'{"jsonrpc":"2.0","id":1,"result":["\\x41",@]}',
    "a short unicode escape": b'{"jsonrpc":"2.0","id":1,"result":["\\u12",@]}',
    "invalid UTF-8 at the end": b'{"jsonrpc":"2.0","id":1,"result":[@,"\xff"]}',
    "an encoded surrogate": b'{"jsonrpc":"2.0","id":1,"result":[@,"\xed\xa0\x80"]}',
    "a truncated UTF-8 character at the end": b'{"jsonrpc":"2.0","id":1,"result":[@,"\xe2\x82"]}',
    "a leading zero": b'{"jsonrpc":"2.0","id":01,"result":@}',
    "a bare minus": b'{"jsonrpc":"2.0","id":1,"result":[@,-]}',
    "a dot without digits": b'{"jsonrpc":"2.0","id":1,"result":[@,1.]}',
    "a misspelt literal": b'{"jsonrpc":"2.0","id":1,"result":[@,tru]}',
    "single quotes": b"{'jsonrpc':'2.0','id':1,'result':@}",
    "a key that is not a string": b'{"jsonrpc":"2.0",id:1,"result":@}',
    "an unclosed string": b'{"jsonrpc":"2.0","id":1,"result":"' + PAD[1:-1] + b"}",
}

# valid, but past what the skim vouches for: the full parse classifies them
UNSURE = {
    "a big error object": b'{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":@}}',
    "a big id": b'{"jsonrpc":"2.0","id":@,"result":1}',
    "deep nesting": b'{"jsonrpc":"2.0","id":1,"result":' + b"[" * 300 + b"@" + b"]" * 300 + b"}",
    "a batch": b'[{"jsonrpc":"2.0","id":1,"result":@}]',
}


@pytest.mark.parametrize("name", VALID)
def test_a_big_valid_message_is_skimmed_and_classified_as_the_full_parse_does(name):
    line = big(VALID[name])
    members = skim.skim_object(line)
    assert members is not None, "the skim gave up on a valid message"
    parsed = json.loads(line)
    assert list(members) == list(parsed)
    for key in skim.CLASSIFIED & parsed.keys():
        assert members[key] == parsed[key] and type(members[key]) is type(parsed[key])
    event = decode_line(line, Direction.S2C)
    assert event.kind == Kind.MESSAGE
    assert verdict(event) == verdict(full_parse(line))


@pytest.mark.parametrize("name", INVALID)
def test_a_big_broken_line_is_a_framing_error_with_the_full_parses_reason_and_its_exact_bytes(name):
    line = big(INVALID[name])
    assert skim.skim_object(line) is None
    event = decode_line(line, Direction.S2C)
    assert event.kind == Kind.FRAMING_ERROR
    assert event.raw == line
    assert verdict(event) == verdict(full_parse(line))


@pytest.mark.parametrize("name", UNSURE)
def test_a_big_message_the_skim_does_not_vouch_for_is_classified_by_the_full_parse(name):
    line = big(UNSURE[name])
    assert skim.skim_object(line) is None
    event = decode_line(line, Direction.S2C)
    assert event.kind == Kind.MESSAGE
    assert verdict(event) == verdict(full_parse(line))


def test_an_integer_too_long_for_python_is_left_to_the_full_parse_which_calls_it_a_framing_error():
    line = b'{"jsonrpc":"2.0","id":1,"result":[' + b"7" * 5000 + b"]}"
    assert skim.skim_object(line) is None
    assert skim.skim_object(line.replace(b"7" * 5000, b"7" * 4000)) is not None
    event = decode_line(line + b" " * BIG_LINE_BYTES, Direction.S2C)  # it raised ValueError before
    assert event.kind == Kind.FRAMING_ERROR and "too long to read" in (event.reason or "")


def test_a_line_of_many_small_tokens_is_left_to_the_full_parse_and_classified_the_same():
    line = json.dumps({"jsonrpc": "2.0", "id": 5, "result": list(range(300_000))}).encode()
    assert len(line) > BIG_LINE_BYTES
    assert skim.skim_object(line) is None
    assert verdict(decode_line(line, Direction.S2C)) == verdict(full_parse(line))
    # the same number of values, each a 200-byte string, is skimmed
    strings = json.dumps({"jsonrpc": "2.0", "id": 5, "result": ["s" * 200] * 300_000}).encode()
    assert skim.skim_object(strings) == {"jsonrpc": "2.0", "id": 5, "result": None}


def test_a_big_line_in_chunks_through_the_decoder_comes_back_byte_for_byte_with_the_same_events():
    stream = big(VALID["a result"]) + b"\n" + big(INVALID["extra text at the end"]) + b"\n" + b'{"a":1}\n'
    decoder = LineDecoder(Direction.S2C)
    events = []
    for start in range(0, len(stream), 65536):
        events += decoder.feed(stream[start:start + 65536])
    events += decoder.close()
    assert b"".join(e.raw + e.eol for e in events) == stream
    assert [e.kind for e in events] == [Kind.MESSAGE, Kind.FRAMING_ERROR, Kind.MESSAGE]
    assert [verdict(e) for e in events[:2]] == [verdict(full_parse(e.raw)) for e in events[:2]]


def test_classifying_a_30_mb_result_does_not_copy_it():
    line = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"' + \
        "h\u00e9llo w\U0001f600rld ".encode() * 2_000_000 + b'"}]}}'
    tracemalloc.start()
    try:
        event = decode_line(line, Direction.S2C)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert event.kind == Kind.MESSAGE and event.rpc is not None and event.rpc.id == 1
    # the full parse holds the text (4 bytes a character here) and the parsed string: several times the line
    assert peak < len(line) / 8, f"{peak:,} bytes allocated to classify a {len(line):,}-byte line"


# any JSON-ish line: the skim (called directly, whatever the size) never vouches for a line json refuses and
# never disagrees with json on what it vouches for
_ATOMS = st.sampled_from([b"1", b"-0.5e3", b"01", b"1.", b"-", b"true", b"nul", b"null", b"NaN", b'"a"', b'"\\u00e9"',
                          b'"\\x"', b'"\t"', b"\xff", b'"\xc3\xa9"', b"[", b"]", b"{", b"}", b",", b":", b" ", b"\r",
                          b'"id"', b'"method"', b'"jsonrpc"', b'"2.0"', b'"result"', b'"error"', b'"code"'])


# five times the profile's count (ci: 1,000; HYPOTHESIS_PROFILE=long: 500,000): the skim's one safety net
@settings(max_examples=5 * settings().max_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ATOMS, max_size=30))
def test_on_any_json_ish_line_the_skim_agrees_with_json_or_gives_up(atoms):
    line = b"{" + b"".join(atoms)
    members = skim.skim_object(line)
    if members is None:
        return
    parsed = framing._DECODER.decode(line.decode("utf-8"))  # raises if the skim vouched for invalid JSON
    assert isinstance(parsed, dict) and list(members) == list(parsed)
    for key in skim.CLASSIFIED & parsed.keys():
        assert members[key] == parsed[key]


def test_the_generated_lines_include_ones_the_skim_vouches_for():
    """The property above is not vacuous: its atoms build valid objects the skim accepts."""
    assert skim.skim_object(b'{"id":1,"method":"2.0" , "result":[{"code":-0.5e3},"\\u00e9",true,null]}') == \
        {"id": 1, "method": "2.0", "result": None}
