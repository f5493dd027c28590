"""What a forum post's Markdown means to pbp, on both paths (by mail and by API).

Discourse's composer quotes with BBCode: the Quote button writes
``[quote="USERNAME, post:N, topic:T"]`` ... ``[/quote]``, and quotes nest. Quoted text is
never the author's own: :func:`own_text` drops it (with the tags), so no command inside
a quote runs, as no ``> `` line ever can (a command line begins with ``/``). A quote left
open runs to the end of the post: it is still quoted text, never commands.
"""
from __future__ import annotations

import re

#: ``[quote]``, ``[quote=name]``, ``[quote="name, post:3, topic:12"]`` and ``[/quote]``,
#: in any case (Discourse's BBCode is case-insensitive)
_QUOTE_TAG = re.compile(r"\[(/?)quote(?:=(?:\"[^\"\n]*\"|[^\]\n]*))?\]", re.I)
_BLANK_RUN = re.compile(r"\n{3,}")


def own_text(raw: str) -> str:
    """``raw`` without its BBCode quotes (nested ones too): the author's own words."""
    if "[" not in raw:
        return raw
    out, depth, at = [], 0, 0
    for tag in _QUOTE_TAG.finditer(raw):
        if depth == 0:
            out.append(raw[at:tag.start()])
        if tag.group(1):          # [/quote]
            depth = max(depth - 1, 0)
        else:
            depth += 1
        at = tag.end()
    if depth == 0:
        out.append(raw[at:])
    return _BLANK_RUN.sub("\n\n", "".join(out))
