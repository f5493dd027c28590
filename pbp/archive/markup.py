"""How the archive shows text: Markdown (the replies kept, a forum post) through a CommonMark
renderer with raw HTML shown as text, a mail's lines as paragraphs, command lines as code."""
from __future__ import annotations

import html

from markdown_it import MarkdownIt

from pbp.archive.view import Entry

_MD = MarkdownIt("commonmark", {"html": False})
def markdown_html(text: str) -> str:
    """Markdown (the replies' and a forum post's) as HTML; raw HTML in it is shown as text."""
    return _MD.render(text or "")


def text_html(entry: Entry) -> str:
    """The author's own text: a forum post's Markdown rendered, a mail's paragraphs kept
    line by line; command lines as code."""
    if entry.row.source == "forum":
        parts, prose = [], []
        for line, is_cmd in entry.lines:
            if is_cmd:
                parts.append(markdown_html("\n".join(prose)))
                prose = []
                parts.append(f'<p class="cmd"><code>{html.escape(line)}</code></p>')
            else:
                prose.append(line)
        parts.append(markdown_html("\n".join(prose)))
        return "".join(parts)
    out, para = [], []

    def close():
        if para:
            out.append("<p>" + "<br>\n".join(para) + "</p>")
            para.clear()

    for line, is_cmd in entry.lines:
        if not line.strip():
            close()
        elif is_cmd:
            close()
            out.append(f'<p class="cmd"><code>{html.escape(line)}</code></p>')
        else:
            para.append(html.escape(line))
    close()
    return "\n".join(out)


def ooc_html(entry: Entry) -> str:
    """The author's words out of character (:mod:`pbp.ooc`), apart from the story."""
    if not entry.ooc:
        return ""
    return ('<div class="ooc"><h3>Out of character</h3>' + "".join(f"<p>{html.escape(line)}</p>" for line in entry.ooc)
            + "</div>")


def faces(dice) -> str:
    return " ".join(f"[{'+' if d > 0 else '-' if d < 0 else '0'}]" if isinstance(d, int) and -1 <= d <= 1
                    else f"[{d}]" for d in dice or ())


