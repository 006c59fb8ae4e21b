"""The preconnect and DNS-prefetch hints of an app's HTML are taken out before it is served (Chromium opens their
connections where neither the CSP nor the request interceptor sees them); other rel tokens stay."""

from __future__ import annotations

from inspector.core.apps.hints import Hint, refuse_hints


def test_a_preconnect_hint_is_taken_out_and_named():
    html, hints = refuse_hints('<html><head><link rel="preconnect" href="http://127.0.0.1:9"></head><p>x</p>')
    assert html == '<html><head><link href="http://127.0.0.1:9"></head><p>x</p>'
    assert hints == [Hint("preconnect", "http://127.0.0.1:9")]


def test_only_the_refused_tokens_go_in_any_case_and_spelling():
    html, hints = refuse_hints('<link rel="Preconnect stylesheet" href=a.css><LINK REL=dns-prefetch HREF=//x.y>'
                               '<link rel=pre&#99;onnect href=http://h:2/>')
    assert html == '<link rel="stylesheet" href="a.css"><link href="//x.y"><link href="http://h:2/">'
    assert [h.rel for h in hints] == ["preconnect", "dns-prefetch", "preconnect"]


def test_a_tag_the_parser_reads_as_a_comment_is_swept_too():
    html, hints = refuse_hints("<!--> <link rel=preconnect href=http://h:1> -->")
    assert "rel=preconnect" not in html and [h.rel for h in hints] == ["preconnect"]


def test_other_links_and_words_are_left_alone():
    document = '<link rel=stylesheet href=/preconnect.css><a href="/preconnect">preconnect</a>'
    assert refuse_hints(document) == (document, [])


def test_a_hint_after_lines_of_every_ending_is_found_where_it_is():
    html, hints = refuse_hints("<p>a\r\nb\u2028c\x0cd</p>\n<link rel=pre&#99;onnect href=http://h:3>")
    assert html.endswith('<link href="http://h:3">') and hints == [Hint("preconnect", "http://h:3")]
