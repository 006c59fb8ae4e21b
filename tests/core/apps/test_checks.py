"""The checks of an app's resource and of a tool's app metadata: each problem is one finding with a sentence,
an app whose resource is fine has none."""

from __future__ import annotations

import base64

import pytest

from inspector.core.apps.checks import read_resource
from inspector.core.apps.meta import (
    app_may_call,
    client_extension,
    model_may_call,
    resource_uri,
    tool_findings,
    visibility,
)

HTML = "<!DOCTYPE html><html><body>hi</body></html>"
URI = "ui://demo/app.html"


def result(**content):
    return {"contents": [{"uri": URI, "mimeType": "text/html;profile=mcp-app", "text": HTML, **content}]}


def texts(resource):
    return [(f.severity, f.text) for f in resource.findings]


def test_a_well_formed_resource_has_no_finding_and_its_html():
    resource = read_resource(URI, result(_meta={"ui": {"csp": {"connectDomains": ["https://api.example.com"]},
                                                       "prefersBorder": True}}))
    assert resource.findings == [] and resource.html == HTML and resource.meta_source == "content"
    assert resource.size == len(HTML)


def test_a_blob_is_decoded():
    resource = read_resource(URI, {"contents": [{"uri": URI, "mimeType": "text/html;profile=mcp-app",
                                                 "blob": base64.b64encode(HTML.encode()).decode()}]})
    assert resource.html == HTML and resource.findings == []


@pytest.mark.parametrize("content, severity, words", [
    ({"mimeType": "text/html"}, "error", "not text/html;profile=mcp-app"),
    ({"mimeType": "text/html; profile=mcp-app"}, "warning", "exactly text/html;profile=mcp-app"),
    ({"mimeType": None}, "error", "no mimeType"),
    ({"text": None, "blob": "%%%"}, "error", "not base64"),
    ({"text": None, "blob": base64.b64encode(b"\xff\xfe").decode()}, "error", "not UTF-8"),
    ({"blob": base64.b64encode(HTML.encode()).decode()}, "error", "both text and blob"),
    ({"text": "<html><body>no doctype</body></html>"}, "warning", "<!DOCTYPE html>"),
    ({"text": "   "}, "error", "empty"),
    ({"uri": "ui://demo/other.html"}, "warning", "not 'ui://demo/app.html'"),
    ({"_meta": {"ui": {"csp": {"connectDomains": "https://x"}}}}, "error", "connectDomains is not a list"),
    ({"_meta": {"ui": {"csp": {"scriptDomains": []}}}}, "warning", "'scriptDomains', which the extension does not"),
    ({"_meta": {"ui": {"cps": {}}}}, "warning", "key 'cps'"),
    ({"_meta": {"ui": {"permissions": {"camera": True}}}}, "error", "permissions.camera is not an object"),
    ({"_meta": {"ui": {"permissions": {"telepathy": {}}}}}, "warning", "'telepathy'"),
    ({"_meta": {"ui": {"prefersBorder": "yes"}}}, "error", "prefersBorder is not a boolean"),
    ({"_meta": {"ui": {"domain": "a.example.com"}}}, "info", "not honoured"),
    ({"_meta": {"ui": "csp"}}, "error", "_meta.ui is not an object"),
])
def test_each_problem_of_a_resource_is_one_finding(content, severity, words):
    resource = read_resource(URI, result(**content))
    found = texts(resource)
    assert any(s == severity and words in t for s, t in found), found


def test_a_resource_without_contents_has_no_html_and_says_why():
    resource = read_resource(URI, {"contents": []})
    assert resource.html == "" and resource.errors[0].text == f"resources/read of {URI} returned no contents"


def test_a_uri_that_is_no_ui_uri_is_an_error():
    resource = read_resource("https://x/app.html", {"contents": [{"uri": "https://x/app.html",
                                                                   "mimeType": "text/html;profile=mcp-app",
                                                                   "text": HTML}]})
    assert any("does not start with ui://" in f.text for f in resource.errors)


def test_the_content_items_meta_wins_over_the_listings_and_the_difference_is_said():
    listing = {"uri": URI, "_meta": {"ui": {"csp": {"connectDomains": ["https://listed.example.com"]}}}}
    resource = read_resource(URI, result(_meta={"ui": {"csp": {"connectDomains": ["https://read.example.com"]}}}),
                             listing)
    assert resource.meta_source == "content"
    assert resource.ui_meta["csp"]["connectDomains"] == ["https://read.example.com"]
    assert any(f.severity == "info" and "differs" in f.text for f in resource.findings)


def test_the_listings_meta_is_used_when_the_content_item_has_none():
    listing = {"uri": URI, "_meta": {"ui": {"csp": {"connectDomains": ["https://listed.example.com"]}}}}
    resource = read_resource(URI, result(), listing)
    assert resource.meta_source == "listing" and resource.findings == []


def test_a_tool_names_its_app_by_the_nested_key_or_the_deprecated_flat_one():
    assert resource_uri({"_meta": {"ui": {"resourceUri": URI}}}) == URI
    assert resource_uri({"_meta": {"ui/resourceUri": URI}}) == URI
    assert resource_uri({"_meta": {"ui": {"resourceUri": URI}, "ui/resourceUri": "ui://other"}}) == URI
    assert resource_uri({"name": "plain"}) is None
    assert resource_uri({"_meta": {"ui": {"resourceUri": 7}}}) is None


def test_the_flat_key_alone_and_two_different_uris_are_warned_about():
    assert "deprecated" in tool_findings({"name": "t", "_meta": {"ui/resourceUri": URI}})[0].text
    two = tool_findings({"name": "t", "_meta": {"ui": {"resourceUri": URI}, "ui/resourceUri": "ui://other"}})
    assert [f.severity for f in two] == ["warning"] and "names two apps" in two[0].text
    same = tool_findings({"name": "t", "_meta": {"ui": {"resourceUri": URI}, "ui/resourceUri": URI}})
    assert same == []
    assert "not a ui:// URI" in tool_findings({"name": "t", "_meta": {"ui": {"resourceUri": "https://x"}}})[0].text


def test_visibility_says_who_may_call_a_tool_and_defaults_to_both():
    app_only = {"_meta": {"ui": {"visibility": ["app"]}}}
    model_only = {"_meta": {"ui": {"visibility": ["model"]}}}
    assert visibility({}) == ("model", "app") and app_may_call({}) and model_may_call({})
    assert app_may_call(app_only) and not model_may_call(app_only)
    assert model_may_call(model_only) and not app_may_call(model_only)
    unknown = tool_findings({"name": "t", "_meta": {"ui": {"visibility": ["agent"]}}})
    assert "only \"model\" and \"app\"" in unknown[0].text


def test_the_client_declares_the_extension_with_the_app_mime_type():
    assert client_extension() == {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
