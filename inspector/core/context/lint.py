"""What the model sees, linted: tool poisoning in the text of a server's listing (docs/context-rules.md).

Every string of every tool, prompt and resource template (the name, the description, each parameter's
description and title in the schemas at any depth, annotations, enum values, defaults; the members' names too,
for hidden characters) and the server's instructions is read by each rule of :data:`RULES`. A finding names its
rule, severity (note, warning, error), the item, the field (a dotted path: ``inputSchema.properties.path.
description``), the exact span (code-point offsets into that field's text, end exclusive) and the text of the
span with hidden characters made visible. Runs of Unicode tag characters are also decoded and the hidden text is
linted too (its findings point at the run).

The rules are fixed regular expressions over bounded windows (no unbounded backtracking on a server's text).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from inspector.core.context.cost import KINDS, Listing

NOTE, WARNING, ERROR = "note", "warning", "error"
SEVERITIES = (NOTE, WARNING, ERROR)


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str  #: the highest severity the rule gives
    title: str
    source: str  #: where the indicator is described (docs/context-rules.md has the links)


HIDDEN = Rule("hidden-characters", ERROR, "Hidden characters: Unicode tag characters, bidi overrides, zero-width "
              "and other invisible code points",
              "OWASP MCP Top 10 MCP03; Invariant Labs, tool poisoning; the Unicode tag ASCII-smuggling write-ups")
SENSITIVE = Rule("sensitive-read", ERROR, "An instruction to read or pass files, keys, credentials or the "
                 "environment", "Invariant Labs, MCP Security Notification: Tool Poisoning Attacks; OWASP MCP03")
CONCEAL = Rule("concealment", ERROR, "An instruction to hide something from the user",
               "Invariant Labs, tool poisoning (\"do not mention\"); OWASP MCP03")
SHADOW = Rule("tool-shadowing", ERROR, "Instructions about other tools (shadowing)",
              "Invariant Labs, tool shadowing (the BCC example); OWASP MCP03")
IGNORE = Rule("ignore-instructions", ERROR, "An instruction to ignore or replace the model's instructions",
              "OWASP LLM01 prompt injection; OWASP MCP03")
EXFIL = Rule("exfiltration", ERROR, "An instruction to send data to a URL or address",
             "Invariant Labs, tool poisoning and WhatsApp exfiltration; OWASP MCP03")
COLLISION = Rule("tool-name-collision", WARNING, "A tool name that several servers list",
                 "OWASP MCP03 (shadowing); Invariant Labs, tool shadowing across servers")
RULES: tuple[Rule, ...] = (HIDDEN, SENSITIVE, CONCEAL, SHADOW, IGNORE, EXFIL, COLLISION)


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: str
    kind: str  #: tool, prompt, template or instructions
    item: str  #: the item's name (a template's URI template)
    field: str  #: dotted path of the string in the item ("description", "inputSchema.properties.x.description")
    start: int  #: code-point offset of the span in the field's text
    end: int
    excerpt: str  #: the span's text, hidden characters made visible
    message: str
    server: str | None = None  #: the server that lists the item, when several are linted together

    def label(self) -> str:
        return self.item if self.server is None else f"{self.server}/{self.item}"

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "severity": self.severity, "kind": self.kind, "item": self.item,
                **({"server": self.server} if self.server else {}), "field": self.field,
                "span": [self.start, self.end], "excerpt": self.excerpt, "message": self.message}


# -- hidden characters -------------------------------------------------------------------------------------------

_TAGS = (0xE0000, 0xE007F)
#: bidi embeddings, overrides and isolates: they reorder what a person sees against what the model reads
_BIDI = frozenset([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])
#: marks that are ordinary in right-to-left text
_BIDI_MARKS = frozenset({0x200E, 0x200F, 0x061C})
#: zero-width and other invisible code points
_INVISIBLE = frozenset({0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF, 0x180E, 0x115F,
                        0x1160, 0x3164, 0xFFA0, 0x034F})
_VS_SUPPLEMENT = (0xE0100, 0xE01EF)  # variation selectors used to smuggle bytes ("emoji smuggling")
_JOINERS = frozenset({0x200C, 0x200D})
_HIDDEN_RE = re.compile("[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b-\u200d"
                        "\u2060-\u2064\ufeff\u180e\u115f\u1160\u3164\uffa0\u034f\U000e0100-\U000e01ef]+")


def _hidden_severity(cp: int) -> str:
    if _TAGS[0] <= cp <= _TAGS[1] or cp in _BIDI or _VS_SUPPLEMENT[0] <= cp <= _VS_SUPPLEMENT[1]:
        return ERROR
    if cp in _BIDI_MARKS:
        return NOTE
    return WARNING


def visible(text: str) -> str:
    """``text`` with every hidden code point shown: a run of tag characters as ``⟦tags: decoded⟧``, anything
    else as ``⟦U+202E RIGHT-TO-LEFT OVERRIDE⟧``."""
    return _HIDDEN_RE.sub(lambda m: _describe_run(m.group()), text)


def _decode_tags(run: str) -> str:
    return "".join(chr(ord(c) - _TAGS[0]) if 0x20 <= ord(c) - _TAGS[0] < 0x7F else "" for c in run)


def _describe_run(run: str) -> str:
    parts: list[str] = []
    i = 0
    while i < len(run):
        cp = ord(run[i])
        if _TAGS[0] <= cp <= _TAGS[1]:
            j = i
            while j < len(run) and _TAGS[0] <= ord(run[j]) <= _TAGS[1]:
                j += 1
            parts.append(f"⟦{j - i} tag characters: {_decode_tags(run[i:j])!r}⟧")
            i = j
            continue
        parts.append(f"⟦U+{cp:04X} {unicodedata.name(run[i], 'UNNAMED')}⟧")
        i += 1
    return "".join(parts)


def _benign_joiner(text: str, start: int, end: int) -> bool:
    """A lone ZWJ/ZWNJ between two non-ASCII characters: an emoji sequence or a script that needs it."""
    if end - start != 1 or ord(text[start]) not in _JOINERS:
        return False
    return 0 < start and end < len(text) and ord(text[start - 1]) > 0x7F and ord(text[end]) > 0x7F


def _hidden(text: str) -> Iterator[tuple[Rule, str, int, int, str]]:
    for m in _HIDDEN_RE.finditer(text):
        start, end = m.span()
        if _benign_joiner(text, start, end):
            continue
        worst = max((_hidden_severity(ord(c)) for c in m.group()), key=SEVERITIES.index)
        yield HIDDEN, worst, start, end, f"{end - start} hidden code point{'s' if end - start > 1 else ''}"


# -- phrases -----------------------------------------------------------------------------------------------------

def _sentence(n: int) -> str:
    """Up to ``n`` characters that stay in one sentence (no line break, no full stop followed by a space)."""
    return rf"(?:(?!\.\s)[^\n]){{0,{n}}}?"


_FLAGS = re.IGNORECASE
_DIRECTIVE = (r"\b(?:read|cat|open|load|fetch|get|grab|retrieve|access|collect|extract|include|pass|send|attach|"
              r"append|copy|provide|upload|put|add|insert|embed|supply|list|dump|print)\b")
_SECRET_PATHS = (r"(?:~/\.ssh\b|\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|(?<![\w.])\.env\b|/etc/(?:passwd|shadow)\b|"
                 r"\.aws/credentials\b|\.git-credentials\b|\.netrc\b|\.npmrc\b|\.pypirc\b|\.kube/config\b|"
                 r"\bmcp\.json\b|claude_desktop_config|\.cursor/|\.docker/config\.json)")
_SECRET_WORDS = (r"(?:\bprivate[ _-]?keys?\b|\bapi[ _-]?keys?\b|\bsecret[ _-]?keys?\b|\baccess[ _-]?tokens?\b|"
                 r"\bpasswords?\b|\bcredentials?\b|\benvironment variables?\b|\benv vars?\b|process\.env\b|"
                 r"os\.environ\b|\bseed phrases?\b|\bkeychain\b|\bssh keys?\b)")
_SENSITIVE_RE = re.compile(_DIRECTIVE + _sentence(80) + rf"(?:{_SECRET_PATHS}|{_SECRET_WORDS})", _FLAGS)
_SECRET_PATH_RE = re.compile(_SECRET_PATHS, _FLAGS)

_CONCEAL_RES = [re.compile(p, _FLAGS) for p in (
    r"\b(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't|without|avoid)\s+(?:\w+\s+){0,2}?"
    r"(?:tell|telling|mention|mentioning|inform|informing|notify|notifying|reveal|revealing|show|showing|"
    r"disclose|disclosing|alert|alerting|let|letting|explain|explaining)\b" + _sentence(40) +
    r"\b(?:user|users|human|person|anyone|them|him|her)\b",
    r"\b(?:the )?(?:user|users|human)\s+(?:must|should|shall|need|needs)\s*(?:not|never|n't)\s+"
    r"(?:\w+\s+){0,2}?(?:know|see|notice|learn|find out|be (?:told|aware|informed|notified))\b",
    r"\b(?:do not|don't|never)\s+(?:mention|reveal|disclose)\s+(?:that|this|it|what|how|why)\b",
    r"\bkeep (?:this|it|that)\s+(?:\w+\s+){0,2}?(?:secret|hidden|confidential|private)\b",
    r"\bhide (?:this|it|that)\b" + _sentence(30) + r"\bfrom\b",
    r"\b(?:very )?(?:upset|angry)\b" + _sentence(30) + r"\b(?:if|when)\b" + _sentence(20) + r"\b(?:know|knew|find)\b",
)]

_IGNORE_RES = [re.compile(p, _FLAGS) for p in (
    r"\b(?:ignore|disregard|forget|override|bypass|discard)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+)*"
    r"(?:previous|prior|above|earlier|preceding|former|other|system|original|existing|safety)\s+"
    r"(?:instructions?|prompts?|rules|directions|guidelines|context|messages?|guardrails|policies)\b",
    r"\byou are now\b",
    r"\bnew (?:system )?instructions?\s*:",
    r"</?(?:important|system|instructions?|secret|hidden)>",
)]

_OTHER_TOOLS = r"(?:any|another|other|all|every|each)\s+(?:\w+\s+)?(?:tools?|functions?)\b"
_SHADOW_RES = [re.compile(p, _FLAGS) for p in (
    r"\b(?:when(?:ever)?|every time|each time|before|after|if)\b" + _sentence(60) + r"\b" + _OTHER_TOOLS +
    _sentence(60) + r"\b(?:must|should|shall|always|never|instead|also|first)\b",
    r"\b(?:bcc|blind carbon copy)\b",
    r"\bthe\s+[\w.-]+\s+(?:tool|function)\s+(?:must|should|shall|has to|needs to)\b",
    r"\b(?:overrides?|replaces?|changes?|modif(?:y|ies))\s+(?:the\s+)?(?:behaviou?r|rules|instructions)\s+of\b",
    r"\b(?:all|every|any)\s+(?:e-?mails?|messages?)\b" + _sentence(60) + r"\b(?:must|should|shall)\s+"
    r"(?:\w+\s+){0,2}?(?:be\s+)?(?:sent|forwarded|redirected|copied|cc'?d|bcc'?d)\b",
)]

_SEND = (r"\b(?:send|sends|post|forward|upload|transmit|report|submit|e-?mail|mail|cc|bcc|exfiltrate|leak|share|"
         r"deliver|relay|copy)\b")
_ADDRESS = r"(?:https?://[^\s\"'<>)]+|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b|\bwebhook\b)"
_EXFIL_RE = re.compile(_SEND + _sentence(100) + _ADDRESS, _FLAGS)


#: Words one of which a text must hold (lower-cased) for a rule's patterns to be tried at all: most strings of a
#: listing hold none, and a substring test is far cheaper than the patterns (benchmarks/context.py).
_GATES = {
    "sensitive": (".ssh", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", ".env", "/etc/", ".aws", "credential",
                  ".netrc", ".npmrc", ".pypirc", ".kube", "mcp.json", "claude_desktop", ".cursor", ".docker",
                  "private", "api key", "api_key", "api-key", "apikey", "secret", "access token", "access_token",
                  "access-token", "accesstoken", "password", "environment", "env var", "environ", "seed phrase",
                  "keychain", "ssh key"),
    "conceal": ("not ", "n't", "never", "without", "avoid", "keep ", "hide ", "upset", "angry"),
    "ignore": ("ignore", "disregard", "forget", "override", "bypass", "discard", "you are now", "instruction", "<"),
    "shadow": ("tool", "function", "bcc", "carbon", "behavio", "rules", "instructions", "mail", "message"),
    "exfil": ("http", "@", "webhook"),
}


def _gate(low: str, name: str) -> bool:
    return any(word in low for word in _GATES[name])


def _phrases(text: str) -> Iterator[tuple[Rule, str, int, int, str]]:
    low = text.lower()
    if _gate(low, "sensitive"):
        directed = False
        for m in _SENSITIVE_RE.finditer(text):
            directed = True
            yield SENSITIVE, ERROR, *m.span(), "tells the model to read or pass a secret, file or the environment"
        if not directed:
            for m in _SECRET_PATH_RE.finditer(text):
                yield SENSITIVE, WARNING, *m.span(), "names a file that holds secrets"
    if _gate(low, "conceal"):
        for pattern in _CONCEAL_RES:
            for m in pattern.finditer(text):
                yield CONCEAL, ERROR, *m.span(), "tells the model to hide something from the user"
    if _gate(low, "ignore"):
        for pattern in _IGNORE_RES:
            for m in pattern.finditer(text):
                severity = WARNING if m.group().startswith("<") else ERROR
                yield IGNORE, severity, *m.span(), "tells the model to set aside its instructions" \
                    if severity == ERROR else "a pseudo-tag that marks text as instructions for the model"
    if _gate(low, "shadow"):
        for index, pattern in enumerate(_SHADOW_RES):
            for m in pattern.finditer(text):
                severity = WARNING if index == 1 else ERROR  # BCC alone: said of a mail tool's own parameter too
                yield SHADOW, severity, *m.span(), "gives the model instructions about other tools or messages"
    if _gate(low, "exfil"):
        for m in _EXFIL_RE.finditer(text):
            yield EXFIL, ERROR, *m.span(), "tells the model to send something to an address"


# -- walking a listing ----------------------------------------------------------------------------------------

def _strings(value: Any, path: str) -> Iterator[tuple[str, str, bool]]:
    """(path, text, is_key) for every string in ``value``, in document order: values, and members' names (keys).
    A loop, not recursion: a server's schema may be nested as deep as JSON parsing allows."""
    stack: list[tuple[Any, str, bool]] = [(value, path, False)]
    while stack:
        node, where, is_key = stack.pop()
        if isinstance(node, str):
            yield where, node, is_key
        elif isinstance(node, dict):
            children: list[tuple[Any, str, bool]] = []
            for key, member in node.items():
                sub = f"{where}.{key}" if where else str(key)
                if isinstance(key, str) and _HIDDEN_RE.search(key):
                    children.append((key, sub, True))
                children.append((member, sub, False))
            stack.extend(reversed(children))
        elif isinstance(node, list):
            stack.extend(reversed([(member, f"{where}[{i}]", False) for i, member in enumerate(node)]))


def lint_text(text: str) -> Iterator[tuple[Rule, str, int, int, str]]:
    """(rule, severity, start, end, message) for each finding in one string; the hidden text of tag runs is
    linted too, its findings spanning the run."""
    for rule, severity, start, end, message in _hidden(text):
        yield rule, severity, start, end, message
        decoded = _decode_tags(text[start:end])
        if decoded.strip():
            for inner, inner_severity, _s, _e, inner_message in _phrases(decoded):
                yield inner, inner_severity, start, end, f"hidden in tag characters: {inner_message}"
    if text.isascii() or not _HIDDEN_RE.search(text):
        yield from _phrases(text)
    else:
        # Lint the text a person reads (hidden code points taken out) but report spans in the original text.
        kept = [i for i, c in enumerate(text) if not _HIDDEN_RE.match(c)]
        plain = "".join(text[i] for i in kept)
        for rule, severity, start, end, message in _phrases(plain):
            yield rule, severity, kept[start], kept[end - 1] + 1, message


def lint(listing: Listing) -> list[Finding]:
    """Every finding in ``listing``, in the order of its items and fields."""
    found: list[Finding] = []
    for kind in KINDS:
        name_member = KINDS[kind][1]
        for item in listing.items(kind):
            name = item.get(name_member)
            label = name if isinstance(name, str) else str(name)
            for path, text, is_key in _strings(item, ""):
                for rule, severity, start, end, message in lint_text(text):
                    if is_key and rule is not HIDDEN:
                        continue
                    found.append(Finding(rule.id, severity, kind, label, path + (" (a member's name)" if is_key
                                         else ""), start, end, visible(text[start:end]), message))
    if listing.instructions:
        for rule, severity, start, end, message in lint_text(listing.instructions):
            found.append(Finding(rule.id, severity, "instructions", "instructions", "instructions", start, end,
                                 visible(listing.instructions[start:end]), message))
    return found


def collisions(named: list[tuple[str, Listing]]) -> list[Finding]:
    """A finding per tool name that more than one of the named servers lists: a client that puts them side by
    side gives the model two tools of one name (which one a call reaches is the client's choice)."""
    servers: dict[str, list[str]] = {}
    for server, listing in named:
        for item in listing.items("tool"):
            name = item.get("name")
            if isinstance(name, str) and server not in servers.setdefault(name, []):
                servers[name].append(server)
    return [Finding(COLLISION.id, WARNING, "tool", name, "name", 0, len(name), visible(name),
                    f"listed by {len(where)} servers: {', '.join(where)}")
            for name, where in servers.items() if len(where) > 1]

