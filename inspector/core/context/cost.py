"""What a server's listing costs a model's context: tokens and bytes of every tool (each part: name, title,
description, input schema, output schema, annotations, the rest; and the whole), prompt and resource template,
of the server's ``instructions``, and the total a client pays to list them.

What is counted is the text a client puts in the context: a string member as its text, any other member (a
schema, the annotations) as compact JSON (no spaces, members in the server's order, non-ASCII kept), and an item
as a whole as its compact JSON definition. The total is the sum of the wholes and the instructions; the parts of
an item add up to less than its whole (JSON's quotes, keys and commas are the difference).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from inspector.core.context.tokenizers import Tokenizer

#: the parts of a tool, in the order reports show them; ``other`` is every remaining member (_meta, icons, ...)
TOOL_PARTS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
PROMPT_PARTS = ("name", "title", "description", "arguments")
TEMPLATE_PARTS = ("name", "title", "uriTemplate", "description", "mimeType")
#: kind -> (the listing's key, the member that names an item, its parts)
KINDS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "tool": ("tools", "name", TOOL_PARTS),
    "prompt": ("prompts", "name", PROMPT_PARTS),
    "template": ("templates", "uriTemplate", TEMPLATE_PARTS),
}


class ContextError(Exception):
    """A listing cannot be costed; ``str()`` is a sentence."""


def text_of(value: Any) -> str:
    """What a member costs as text: a string itself, anything else compact JSON. Raises ContextError for a value
    nested too deep to write out again (a server's schema at the edge of what JSON parsing allows)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except RecursionError:
        raise ContextError("a definition is nested too deep to be costed (JSON nested about a thousand levels "
                           "deep)") from None


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


@dataclass
class Cost:
    """Tokens and bytes of one text."""

    tokens: int = 0
    bytes: int = 0

    def add(self, other: Cost) -> None:
        self.tokens += other.tokens
        self.bytes += other.bytes


@dataclass
class ItemCost:
    """One tool, prompt or resource template (``kind``), or the server's instructions (kind ``instructions``)."""

    kind: str
    name: str
    cost: Cost
    parts: dict[str, Cost] = field(default_factory=dict)  #: part -> cost, only the parts the item has
    server: str | None = None  #: the server that lists it, when several are costed together

    def label(self) -> str:
        return self.name if self.server is None else f"{self.server}/{self.name}"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, **({"server": self.server} if self.server else {}),
                "tokens": self.cost.tokens, "bytes": self.cost.bytes,
                "parts": {p: {"tokens": c.tokens, "bytes": c.bytes} for p, c in self.parts.items()}}


@dataclass
class Listing:
    """What a client lists of a server: its items by kind (``tools``, ``prompts``, ``templates``; None when never
    listed) and its instructions."""

    tools: list[dict[str, Any]] | None = None
    prompts: list[dict[str, Any]] | None = None
    templates: list[dict[str, Any]] | None = None
    instructions: str | None = None

    def items(self, kind: str) -> list[dict[str, Any]]:
        found = getattr(self, KINDS[kind][0])
        return [item for item in found or () if isinstance(item, dict)]


def measure(text: str, tok: Tokenizer) -> Cost:
    return Cost(tok.count(text), utf8_size(text))


def item_cost(kind: str, item: dict[str, Any], tok: Tokenizer) -> ItemCost:
    _key, name_member, part_names = KINDS[kind]
    parts = {p: measure(text_of(item[p]), tok) for p in part_names if p in item}
    rest = {k: v for k, v in item.items() if k not in part_names}
    if rest:
        parts["other"] = measure(text_of(rest), tok)
    name = item.get(name_member)
    return ItemCost(kind, name if isinstance(name, str) else text_of(name), measure(text_of(item), tok), parts)


def costs(listing: Listing, tok: Tokenizer) -> list[ItemCost]:
    """Every item's cost (and the instructions'), the largest first (then by kind and name)."""
    out = [item_cost(kind, item, tok) for kind in KINDS for item in listing.items(kind)]
    if listing.instructions:
        out.append(ItemCost("instructions", "instructions", measure(listing.instructions, tok)))
    order = list(KINDS) + ["instructions"]
    out.sort(key=lambda c: (-c.cost.tokens, -c.cost.bytes, order.index(c.kind), c.name))
    return out


def total(items: list[ItemCost]) -> Cost:
    whole = Cost()
    for item in items:
        whole.add(item.cost)
    return whole
