"""The one way Bio-MCP turns E-utilities XML into an element tree.

Upstream bodies are untrusted bytes, so the parser never resolves entities, never loads a DTD and
never touches the network; a document that declares entities of its own is refused outright, since
NCBI's responses never do and an internal subset is the vehicle of entity-expansion and
external-entity attacks. Any parse failure becomes `BioMcpError(ENTREZ)` carrying libxml2's message.
"""

from __future__ import annotations

import re
import threading

from lxml import etree

from bio_mcp.errors import BioMcpError, ErrorCode

_per_thread = threading.local()


def make_parser() -> etree.XMLParser:
    """A new parser with every network, DTD and entity feature switched off."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
    )


def _thread_parser() -> etree.XMLParser:
    # lxml parsers keep per-parse state, so each thread gets its own and reuses it.
    parser = getattr(_per_thread, "parser", None)
    if parser is None:
        parser = _per_thread.parser = make_parser()
    return parser


def parse_xml(body: bytes | str) -> etree._Element:
    """The root element of `body`, or `BioMcpError(ENTREZ)` when it is not safe, well-formed XML."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    try:
        root = etree.fromstring(data, _thread_parser())
    except etree.XMLSyntaxError as exc:
        raise BioMcpError(
            ErrorCode.ENTREZ,
            "NCBI returned malformed or truncated XML",
            {"parserMessage": str(exc), "line": exc.lineno, "column": exc.offset, "bytes": len(data)},
        ) from None
    if root is None:
        raise BioMcpError(ErrorCode.ENTREZ, "NCBI returned an empty XML document", {"bytes": len(data)})
    dtd = root.getroottree().docinfo.internalDTD
    if dtd is not None:
        declared = [entity.name for entity in dtd.iterentities()]
        if declared:
            raise BioMcpError(
                ErrorCode.ENTREZ,
                "XML declaring its own entities is refused",
                {"parserMessage": "entity declarations in the document type", "entities": declared[:10]},
            )
    return root


def element_text(element: etree._Element | None) -> str:
    """All text under `element` with inline markup (<i>, <sup>, MathML...) dropped and whitespace collapsed."""
    if element is None:
        return ""
    if not len(element):
        return collapsed(element.text)
    text = etree.tostring(element, method="text", encoding="unicode", with_tail=False)
    return " ".join(text.split())


def collapsed(text: str | None) -> str:
    """`text` (of a #PCDATA-only element: a name, a code, a date part) with whitespace collapsed.

    Cheaper than `element_text` on the parsers' hot paths, which read `element.text` themselves.
    """
    if not text:
        return ""
    # Most NCBI text is already clean, and checking that in C is cheaper than splitting and joining.
    if text.isprintable() and text[0] != " " and text[-1] != " " and "  " not in text:
        return text
    return " ".join(text.split())


_PROLOG_ITEM = re.compile(rb"\s*(?:<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>)", re.DOTALL)
_ROOT_START = re.compile(rb"\s*<([A-Za-z_][\w.:-]*)")


def truncated_xml(body: bytes, content_type: str) -> BioMcpError | None:
    """`BioMcpError(ENTREZ)` when `body` is an XML document that stops before its root element
    closes (a connection cut mid-answer), else None. Only the two ends are read: this runs on
    every answer, before the full parse, so that a cut answer can be fetched again."""
    head = body[:4096]
    position = 3 if head.startswith(b"\xef\xbb\xbf") else 0
    if "json" in content_type or not head[position:].lstrip().startswith(b"<"):
        return None
    while match := _PROLOG_ITEM.match(head, position):
        position = match.end()
    root = _ROOT_START.match(head, position)
    if root is None:  # the answer stops inside its prolog (an XML declaration or DOCTYPE)
        return BioMcpError(ErrorCode.ENTREZ, "NCBI returned truncated XML (the answer stops in its prolog)",
                           {"bytes": len(body)})
    if re.search(rb"</" + re.escape(root.group(1)) + rb"\s*>\s*\Z", body[-512:]):
        return None
    start_tag_end = head.find(b">", root.end())
    if start_tag_end > 0 and head[start_tag_end - 1] == ord("/") and not body[start_tag_end + 1 :].strip():
        return None
    return BioMcpError(
        ErrorCode.ENTREZ,
        "NCBI returned truncated XML (the answer stops before its root element closes)",
        {"root": root.group(1).decode("ascii", "replace"), "bytes": len(body)},
    )
