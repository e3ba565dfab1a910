"""The text of an ingested file's bytes: which character encoding they are in.

The HTML5 rules, shortened (WHATWG HTML "determining the character encoding"):
1. a byte order mark (UTF-8, UTF-16) wins;
2. for HTML, a charset declared in the first 1,024 bytes (`<meta charset="...">`, or
   `<meta http-equiv="Content-Type" content="text/html; charset=...">`), decoded as the Encoding
   Standard reads its label: ISO-8859-1 and ASCII are windows-1252, TIS-620 and ISO-8859-11 are
   windows-874, and UTF-16 declared inside the bytes is UTF-8;
3. bytes that are valid UTF-8 are UTF-8 (text in another encoding is almost never valid UTF-8 by
   chance, and a detector guessing on short text is wrong more often than that);
4. otherwise charset-normalizer's detection. Code pages it cannot tell apart on the bytes (their
   scores tie: a Latin-1 text whose accents read the same in windows-1250 and windows-1252) are
   decided for windows-874 (Thai, the product's other language) and then windows-1252 (the HTML5
   default for Western text, a superset of ISO-8859-1).
"""

from __future__ import annotations

import codecs
import contextlib
import re

from charset_normalizer import from_bytes

from bio_mcp.errors import BioMcpError, ErrorCode

# How far into an HTML file a declared charset is looked for (HTML5's prescan).
PRESCAN_BYTES = 1024
_META_CHARSET = re.compile(rb"<meta\b[^>]*?\bcharset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.IGNORECASE)
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
# Encoding Standard labels Python does not know, or reads otherwise (its latin-1 has no letters in
# 0x80-0x9F, where windows-1252 has the curly quotes and dashes such files hold).
_LABELS = {
    "windows-874": "cp874", "dos-874": "cp874", "tis-620": "cp874", "iso-8859-11": "cp874", "iso8859-11": "cp874",
    "iso-8859-1": "cp1252", "iso8859-1": "cp1252", "latin1": "cp1252", "l1": "cp1252", "ascii": "cp1252",
    "us-ascii": "cp1252", "cp819": "cp1252", "ibm819": "cp1252", "windows-1252": "cp1252",
}
# Broke ties between code pages the detector scores alike, first preferred.
_TIE_ORDER = ("cp874", "cp1252")


def declared_encoding(data: bytes) -> str | None:
    """The codec an HTML file's first 1,024 bytes declare in a <meta> tag, or None (none, or unknown)."""
    found = _META_CHARSET.search(data[:PRESCAN_BYTES])
    if found is None:
        return None
    label = found.group(1).decode("ascii").strip().lower()
    codec = _LABELS.get(label)
    if codec is None:
        try:
            codec = codecs.lookup(label).name
        except LookupError:
            return None
    return "utf-8" if codec.startswith("utf-16") else codec


def decode_text(data: bytes, *, html: bool, name: str, uri: str) -> str:
    """The file's text; VALIDATION naming `name` when no encoding reads it."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(codec, errors="replace")
    declared = declared_encoding(data) if html else None
    if declared is not None:
        # A wrong declaration gives replacement characters, as a browser shows them.
        return data.decode(declared, errors="replace")
    with contextlib.suppress(UnicodeDecodeError):  # not UTF-8: the detector decides
        return data.decode("utf-8")
    detected = _detected(data)
    if detected is None:
        raise BioMcpError(
            ErrorCode.VALIDATION, f"{name} is not text in any encoding recognised (neither UTF-8 nor one detected): "
            "nothing was written", {"field": "batch.uri", "uri": uri},
        )
    return detected


def _detected(data: bytes) -> str | None:
    matches = from_bytes(data)
    best = matches.best()
    if best is None:
        return None
    tied = {best.encoding, *best.could_be_from_charset}
    tied.update(m.encoding for m in matches if (m.chaos, m.coherence) == (best.chaos, best.coherence))
    for codec in _TIE_ORDER:
        if codec in tied:
            try:
                return data.decode(codec)
            except UnicodeDecodeError:
                continue
    return str(best)
