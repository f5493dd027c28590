"""HTML mail to plain text, with every quoted part marked ``> `` so the trimmer cuts it.

Clients that send only HTML (Outlook above all) put the older mail in the same document
as the reply. What counts as quoted here:

- any ``<blockquote>`` (Apple Mail and Thunderbird ``type="cite"``, Gmail's
  ``class="gmail_quote"``), except Gmail's indent, a blockquote styled ``border:none``;
- Gmail's ``<div class="gmail_quote">`` (its "On ... wrote:" line included), Thunderbird's
  ``<div class="moz-cite-prefix">`` and forward container, Yahoo's and Proton's quotes;
- Outlook's reply header (``<div id="divRplyFwdMsg">``, ``<div id="appendonsend">``, the
  ``border-top:solid #E1E1E1`` block): Outlook writes the older mail *after* that header,
  not inside it, so everything from the header to the end of the document is quoted.

Block elements and ``<br>`` become line breaks, list items get their own lines, ``<style>``,
``<script>`` and ``<head>`` are dropped, entities are unescaped, non-breaking spaces become
spaces and zero-width characters go (so ``&nbsp;/roll`` is still a command line).
"""
from __future__ import annotations

import re
import html as html_module

_BLOCKS = frozenset(
    "address article aside blockquote body center dd details dialog dir div dl dt fieldset "
    "figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr html li main menu nav ol p pre "
    "section summary table tbody tfoot thead tr ul".split()
)
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_SKIP = frozenset("head style script title template noscript object".split())
_HEAD_CONTENT = frozenset("head title style script meta link base noscript template".split())
_CELLS = frozenset(("td", "th"))

_QUOTE_CLASSES = ("gmail_quote", "yahoo_quoted", "protonmail_quote", "moz-cite-prefix",
                  "moz-forward-container", "zmail_extra")
_QUOTED_TAIL_IDS = re.compile(r"(?:^|_)(?:divRplyFwdMsg|appendonsend|stopSpelling)$", re.IGNORECASE)
_QUOTED_TAIL_STYLE = re.compile(r"border-top\s*:\s*solid\s+#(?:E1E1E1|B5C4DF)", re.IGNORECASE)
_GMAIL_INDENT = re.compile(r"border\s*:\s*none", re.IGNORECASE)

_SPACES = re.compile(r"[ \t\n\r\f]+")
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_INVISIBLE[0xA0] = " "


def html_to_text(html: str) -> str:
    """The text of an HTML mail body, quoted parts prefixed with ``>``. Never raises."""
    parser = _TextParser()
    try:
        _tokenize(html, parser)
    except Exception:  # a bug here must not cost the mail: keep what was read
        pass
    return parser.text()


# A tag's attributes may hold ">" inside quotes but never "<", so every attempt to read a tag
# ends at the next "<" at the latest: the scan is linear in the length of the document, what
# the stdlib's html.parser (several microseconds a tag, quadratic on some broken input) was not.
_TAG = re.compile(r"<(/?)([a-zA-Z][^\t\n\r\f />\x00<]*)((?:[^<>\"']|\"[^\"<]*\"|'[^'<]*')*)>")
_LOOSE_TAG = re.compile(r"<(/?)([a-zA-Z][^\t\n\r\f />\x00<]*)([^<>]*)>")
_MARKUP_START = re.compile(r"<[a-zA-Z/!?]")
_DECLARATION = re.compile(r"<[!?][^<>]*>")  # <!DOCTYPE>, <![if mso]>, <?xml ...?>
_ATTR = re.compile(r"""([^\s/>=][^\s/>=]*)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]*))?""")
_RAW_TEXT = {name: re.compile(rf"</{name}[\s/>]", re.IGNORECASE) for name in ("script", "style")}


def _tokenize(html: str, out: "_TextParser") -> None:
    """Feed ``html`` to ``out`` as start tags, end tags and text, as a browser would read
    it for text: comments and declarations dropped, entities unescaped, the insides of
    ``<script>`` and ``<style>`` never parsed as markup."""
    html = _strip_inline_tags(html)
    pos = text_from = 0
    end = len(html)
    while True:
        found = _MARKUP_START.search(html, pos)
        if found is None:
            if text_from < end:
                out.handle_data(_unescape(html[text_from:]))
            return
        lt = found.start()
        if html.startswith("<!--", lt):
            close = html.find("-->", lt + 4)
            after = end if close < 0 else close + 3
            tag = None
        else:
            tag = _TAG.match(html, lt) or _LOOSE_TAG.match(html, lt)
            if tag is None:
                declaration = _DECLARATION.match(html, lt)
                if declaration is None:  # a "<" that starts no tag is text ("a < b")
                    pos = lt + 1
                    continue
                after = declaration.end()
            else:
                after = tag.end()
        if lt > text_from:
            chunk = html[text_from:lt]
            if out.wants(chunk):
                out.handle_data(_unescape(chunk))
        pos = text_from = after
        if tag is None:
            continue
        closing, name, rest = tag.group(1), tag.group(2).lower(), tag.group(3)
        if closing:
            out.handle_endtag(name)
            continue
        # attributes shape the text only on a div or blockquote, or where they name a quote
        attrs = _attributes(rest) if (name in _ATTRIBUTED or _names_a_quote(rest)) else []
        if rest.endswith("/"):
            out.handle_startendtag(name, attrs)
            continue
        out.handle_starttag(name, attrs)
        if name in _RAW_TEXT:
            found = _RAW_TEXT[name].search(html, pos)
            pos = text_from = end if found is None else found.start()


# Inline elements change no line and no quote level, unless one carries a quoting class or
# id (a rare ``<span class="gmail_quote">``): the tags of such an element type are cut out
# in one pass of the regex engine, so the loop above only sees the tags that shape the text.
_INLINE = ("a abbr b bdi bdo big cite code data del dfn em font i img ins kbd label mark nobr q s samp "
           "small span strike strong sub sup time tt u var wbr o:p").split()
# (the flag is scoped: a pattern case-insensitive as a whole loses the regex engine's fast
# search for its literal "<", and runs ten times slower)
_FIRST_LETTERS = "".join(sorted({ch for name in _INLINE for ch in (name[0].lower(), name[0].upper())}))
_INLINE_TAGS = re.compile(r"</?(?=[" + _FIRST_LETTERS + r"])(?i:" + "|".join(map(re.escape, _INLINE))
                          + r")(?=[\s/>])[^<>]*>")
_QUOTING_WORDS = ("quote", "moz-cite-prefix", "moz-forward-container", "zmail_extra", "outlookmessageheader",
                  "divrplyfwdmsg", "appendonsend", "stopspelling")
_INLINE_SET = frozenset(_INLINE)
_TAG_NAME = re.compile(r"<([a-z][^\s/<>]*)")
_TAG_WINDOW = 4000


def _quoting_inline_tag(html: str) -> bool:
    """Whether an inline tag carries a quoting class or id: each place a quoting word
    occurs (few, found by plain substring search) is looked at, never the whole text."""
    low = html.lower()
    for word in _QUOTING_WORDS:
        at = low.find(word)
        while at >= 0:
            window = max(0, at - _TAG_WINDOW)  # bounded, so many words in plain text stay linear
            lt = low.rfind("<", window, at)
            if lt > low.rfind(">", window, at):
                name = _TAG_NAME.match(low, lt)
                if name and name.group(1) in _INLINE_SET:
                    return True
            at = low.find(word, at + len(word))
    return False


def _strip_inline_tags(html: str) -> str:
    if _quoting_inline_tag(html):
        return html
    return _INLINE_TAGS.sub("", html)


_ATTRIBUTED = frozenset(("div", "blockquote"))


def _names_a_quote(rest: str) -> bool:
    if len(rest) < 4:
        return False
    low = rest.lower()
    return any(word in low for word in _QUOTING_WORDS)


def _attributes(text: str) -> list[tuple[str, str | None]]:
    attrs = []
    for name, value in _ATTR.findall(text):
        if value[:1] in ("'", '"') and value[-1:] == value[:1] and len(value) > 1:
            value = value[1:-1]
        attrs.append((name.lower(), _unescape(value) if value else None))
    return attrs


def _unescape(text: str) -> str:
    return html_module.unescape(text) if "&" in text else text


#: quote levels beyond this are written as this many ``>``: the trimmer needs one, and a
#: document nested thousands deep must not make the text grow with the square of its size
MAX_QUOTE_MARKS = 20


class _TextParser:
    """The text being written, from the tokenizer's events."""

    def __init__(self) -> None:
        self._lines: list[tuple[int, str]] = []  # (quote depth, text) of finished lines
        self._parts: list[str] = []  # the line being written
        self._part_depth = 0
        self._open: list[tuple[str, int]] = []  # (tag, quote levels it adds)
        self._open_count: dict[str, int] = {}  # how many of each tag are open
        self._depth = 0  # quote levels of the open elements
        self._rest_quoted = 0  # 1 once an Outlook reply header has started
        self._skipping = 0
        self._in_pre = 0
        self._blank_line = False  # the line holds only &nbsp;: Outlook's empty paragraph

    # ---------------------------------------------------------------- parser events

    def wants(self, data: str) -> bool:
        """False for white space that would change nothing (at the start of a line, outside
        ``<pre>``): the commonest text between tags, skipped without the work of a call."""
        return bool(self._parts) or self._in_pre > 0 or not data.isspace()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._open_count.get("head") and tag not in _HEAD_CONTENT:
            self._close("head")
        if tag in _VOID:
            self._void(tag)
            return
        found = {name: (value or "") for name, value in attrs}
        if _starts_quoted_tail(tag, found):
            self._end_line()
            self._rest_quoted = 1
        levels = 1 if _is_quote(tag, found) else 0
        if levels or tag in _BLOCKS:
            self._end_line()
        elif tag in _CELLS and self._parts:
            self._parts.append(" ")
        self._open.append((tag, levels))
        self._open_count[tag] = self._open_count.get(tag, 0) + 1
        self._depth += levels
        self._skipping += tag in _SKIP
        self._in_pre += tag == "pre"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "br":  # browsers read </br> as <br>
            self._void("br")
            return
        if self._open_count.get(tag):
            self._close(tag)
        if tag in _BLOCKS:
            self._end_line()

    def handle_data(self, data: str) -> None:
        if self._skipping:
            return
        if self._in_pre:
            data = data.translate(_INVISIBLE)
            first, *rest = data.replace("\r\n", "\n").split("\n")
            self._write(first, keep_spaces=True)
            for line in rest:
                self._end_line(force=True)
                self._write(line, keep_spaces=True)
            return
        if "\xa0" in data and not data.strip():
            self._blank_line = True
        self._write(_SPACES.sub(" ", data.translate(_INVISIBLE)))

    # ---------------------------------------------------------------- output

    def text(self) -> str:
        self._end_line()
        out: list[str] = []
        for depth, line in self._lines:
            line = line.rstrip()
            if depth:
                line = ">" * min(depth, MAX_QUOTE_MARKS) + (" " + line if line else "")
            if line or (out and out[-1]):
                out.append(line)
        while out and not out[-1]:
            out.pop()
        return "\n".join(out)

    def _write(self, text: str, *, keep_spaces: bool = False) -> None:
        if not text:
            return
        if not self._parts:
            if not keep_spaces:
                text = text.lstrip(" ")
                if not text:
                    return
            self._part_depth = self._depth + self._rest_quoted
        elif not keep_spaces and text.startswith(" ") and self._parts[-1].endswith(" "):
            text = text[1:]
        if text:
            self._parts.append(text)

    def _end_line(self, *, force: bool = False) -> None:
        """End the line being written; an empty one only for ``<br>`` (``force``)."""
        line = "".join(self._parts)
        if line.strip() or force or self._blank_line:
            depth = self._part_depth if self._parts else self._depth + self._rest_quoted
            self._lines.append((depth, line))
        self._parts = []
        self._blank_line = False

    def _void(self, tag: str) -> None:
        if tag == "br":
            self._end_line(force=True)
        elif tag == "hr":
            self._end_line()

    def _close(self, tag: str) -> None:
        """Close ``tag`` and every element opened inside it and left open."""
        while self._open:
            open_tag, levels = self._open.pop()
            self._open_count[open_tag] -= 1
            if levels:
                self._end_line()
            self._depth -= levels
            self._skipping -= open_tag in _SKIP
            self._in_pre -= open_tag == "pre"
            if open_tag == tag:
                break


def _is_quote(tag: str, attrs: dict[str, str]) -> bool:
    if tag == "blockquote":
        quoting = attrs.get("type", "").lower() == "cite" or "quote" in attrs.get("class", "").lower()
        return quoting or not _GMAIL_INDENT.search(attrs.get("style", ""))
    # Yahoo prefixes its classes in replies: "ydp3f1a2b9cyahoo_quoted"
    return any(token.endswith(_QUOTE_CLASSES) for token in attrs.get("class", "").split())


def _starts_quoted_tail(tag: str, attrs: dict[str, str]) -> bool:
    if _QUOTED_TAIL_IDS.search(attrs.get("id", "")):
        return True
    if "OutlookMessageHeader" in attrs.get("class", ""):
        return True
    return tag == "div" and bool(_QUOTED_TAIL_STYLE.search(attrs.get("style", "")))
