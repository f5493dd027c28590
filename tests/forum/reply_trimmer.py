"""Discourse's reply trimmer, ported to Python for the tests: what Discourse's mail receiver
keeps of a reply by mail (it calls ``EmailReplyTrimmer.trim`` on the text part). Every
answer pbp mails to a forum must come through it whole.

Ported from github.com/discourse/email_reply_trimmer at commit 117fd1a (version 0.2.0, MIT;
its licence is tests/data/reply-trimmer/LICENSE): lib/email_reply_trimmer.rb (``trim``,
``preprocess!``, ``hoist_code_blocks``, ``is_reply_at_end?``) and
lib/email_reply_trimmer/{empty_line,delimiter,signature,embedded_email,email_header,quote}
_matcher.rb; checked against the trimmer's own 64 cases (tests/data/reply-trimmer,
test_reply_trimmer.py). Ruby's ``[[:blank:]]`` is ``[ \\t]``, ``[[:space:]]`` ``\\s``,
``[[:word:]]`` ``\\w``, ``[[:alpha:]]`` ``[^\\W\\d_]``; its ``^``/``$`` are always line
anchors (``re.M``) and its ``/m`` is Python's ``re.S``; ``=~`` the index of the first match.
"""
from __future__ import annotations

import re
import uuid

#: Ruby's [[:blank:]] on a UTF-8 string: a tab or any space separator (a no-break space too)
BLANK = " \\t\\xa0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000"


def _blank(pattern: str) -> str:
    return pattern.replace(r"[ \t", "[" + BLANK)


def rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(_blank(pattern), flags)


DELIMITER, EMBEDDED, EMPTY, EMAIL_HEADER, QUOTE, SIGNATURE, TEXT = "d", "b", "e", "h", "q", "s", "t"
_M = re.M
_IM = re.I | re.M | re.S
_ALPHA = r"[^\W\d_]"

_EMPTY = rx(r"^[ \t]*$", _M)
_DELIMITER = rx(r"^[ \t]*[" + re.escape("-_,=+~#*ᐧ—") + r"]+[ \t]*$", _M)
_SIGNATURES = [rx(p, re.I | re.M) for p in (
    r"^[ \t]*從我的 iPhone 傳送", r"^[ \t]*\w+ from mobile", r"^[ \t]*[\(<]*Sent (from|via|with|by) .+[\)>]*",
    r"^[ \t]*From my .{1,20}", r"^[ \t]*Get Outlook for ", r"^[ \t]*Envoyé depuis (mon|Yahoo Mail)",
    r"^[ \t]*Von meinem .+ gesendet", r"^[ \t]*Diese Nachricht wurde von .+ gesendet", r"^[ \t]*Inviato da ",
    r"^[ \t]*Sendt fra min ", r"^[ \t]*Enviado do meu ", r"^[ \t]*Enviado desde mi ", r"^[ \t]*Verzonden met ",
    r"^[ \t]*Verstuurd vanaf mijn ", r"^[ \t]*från min ",
)]
_MD_LINK = rx(r"\[([^\]]+)\]\([^\)]+\)")

_TAIL = r"[ \t.:>-]*$"
ON_DATE_SOMEONE_WROTE_REGEXES = [rx(p, _IM) for p in (
    r"^[ \t<>-]*在 (?:(?!\b(?>在|写道)\b).)+?写道" + _TAIL,
    r"^[ \t<>-]*Op (?:(?!\b(?>Op|het\svolgende\sgeschreven|schreef)\b).)+?(het\svolgende\sgeschreven|schreef[^:]+)"
    + _TAIL,
    r"^[ \t<>-]*In message (?:(?!\b(?>In message|writes)\b).)+?writes" + _TAIL,
    r"^[ \t<>-]*(On|At) (?:(?!\b(?>On|wrote|writes|says|said)\b).)+?(wrote|writes|says|said)" + _TAIL,
    r"^[ \t<>-]*Le (?:(?!\b(?>Le|nous\sa\sdit|a\s+écrit)\b).)+?(nous\sa\sdit|a\s+écrit)" + _TAIL,
    r"^[ \t<>-]*Am (?:(?!\b(?>Am|schrieben\sSie)\b).)+?schrieben\sSie" + _TAIL,
    r"^[ \t<>-]*Am (?:(?!\b(?>Am|geschrieben)\b).)+?(geschrieben|schrieb[^:]+)" + _TAIL,
    r"^[ \t<>-]*Il (?:(?!\b(?>Il|ha\sscritto)\b).)+?ha\sscritto" + _TAIL,
    r"^[ \t<>-]*(Dnia|Dňa) (?:(?!\b(?>Dnia|Dňa|napisał)\b).)+?napisał(\(a\))?" + _TAIL,
    r"^[ \t<>-]*Em (?:(?!\b(?>Em|escreveu)\b).)+?escreveu" + _TAIL,
    r"^[ \t<>-]*El (?:(?!\b(?>El|escribió)\b).)+?escribió" + _TAIL,
)]
ON_DATE_WROTE_SOMEONE_REGEXES = [rx(rf"^[ \t>]*{on}\s.+\s{wrote}\s[^:]+:", _M)
                                 for on, wrote in (("Op", "schreef"), ("Am", "schrieb"), ("Den", "skrev"),
                                                   (r"søn\.", "skrev"))]
DATE_SOMEONE_WROTE_REGEXES = [
    rx(rf"\d{{4}}.{{1,80}}\n?.{{0,80}}?{wrote}:" if not user else
               rf"\d{{4}}.{{1,80}}{user}.{{0,80}}\n?.{{0,80}}?{wrote}:", _M)
    for user, wrote in (("пользователь", "написал"), ("", r"napisał\(a\)"), ("", "пише"))]
SOMEONE_WROTE_ON_DATE_REGEXES = [rx(r"^.+\bwrote\b\s+\bon\b.+[^:]+:", _M),
                                 rx(r"^.+\bschrieb\b\s+\bam\b.+[^:]+:", _M)]
ISO_DATE_SOMEONE_REGEX = rx(r"^[ \t>]*20\d\d-\d\d-\d\d \d\d:\d\d GMT\+\d\d:\d\d [\w \t]+$", _M)
DATE_SOMEONE_EMAIL_REGEX = rx(r"\d{4}.{1,80}\s?<[^@<>]+@[^@<>.]+\.[^@<>]+>:?$", _M)
_EMBEDDED = [
    *ON_DATE_SOMEONE_WROTE_REGEXES, *ON_DATE_WROTE_SOMEONE_REGEXES, *DATE_SOMEONE_WROTE_REGEXES,
    DATE_SOMEONE_EMAIL_REGEX, *SOMEONE_WROTE_ON_DATE_REGEXES, ISO_DATE_SOMEONE_REGEX,
    *[rx(rf"^.+ via .+ {wrote}:?[ \t]*$", _M) for wrote in ("wrote", "schrieb")],
    rx(r"^.+\b[\w.+-]+@[\w.-]+\.\w{2,}\b.+wrote:?$", _M),
    rx(r"^[ \t>]*Posted by .+ on \d{2}/\d{2}/\d{4}$", re.I | re.M),
    *[rx(p, re.I | re.M) for p in (
        r"^[ \t>]*Begin forwarded message:",
        r"^[ \t>*]*-{2,}[ \t]*(Forwarded|Original|Reply) Message[ \t]*-{2,}",
        r"^[ \t>]*Début du message transféré :",
        r"^[ \t>*]*-{2,}[ \t]*Message transféré[ \t]*-{2,}",
        r"^[ \t>*]*-{2,}[ \t]*Ursprüngliche Nachricht[ \t]*-{2,}",
        r"^[ \t>*]*-{2,}[ \t]*Mensaje original[ \t]*-{2,}",
        r"^[ \t>*]*-{2,}[ \t]*原始邮件[ \t]*-{2,}")],
]
_HEADERS = [
    *[rx(rf"^[ \t*]*(?:{'|'.join(h)})[ \t*]*:.*\d+", _M) for h in (
        ("Sendt",), ("Sent", "Date"), ("Date", "Le"), ("Gesendet",), ("Enviada em",), ("Enviado",), ("Fecha",),
        ("Data",), ("Datum",), ("Skickat",), ("发送时间",))],
    *[rx(rf"^[ \t*]*(?:{'|'.join(h)})[ \t*]*:.*\w+", re.I | re.M) for h in (
        ("Fra", "Til", "Emne"), ("From", "To", "Cc", "Reply-To", "Subject"),
        ("De", "Expéditeur", "À", "Destinataire", "Répondre à", "Objet"), ("Von", "An", "Betreff"),
        ("De", "Para", "Assunto"), ("De", "Para", "Asunto"), ("Da", "Risposta", "A", "Oggetto"),
        ("Van", "Beantwoorden - Aan", "Aan", "Onderwerp"), ("Från", "Till", "Ämne"), ("发件人", "收件人", "主题"))],
]
_QUOTE = rx(r"^[ \t]*>", _M)


def identify_line_content(line: str) -> str:
    if _EMPTY.search(line):
        return EMPTY
    if _DELIMITER.search(line):
        return DELIMITER
    stripped = _MD_LINK.sub(lambda m: m.group(1), line)
    if any(r.search(stripped) for r in _SIGNATURES):
        return SIGNATURE
    if any(r.search(line) for r in _EMBEDDED):
        return EMBEDDED
    if any(r.search(line) for r in _HEADERS):
        return EMAIL_HEADER
    if _QUOTE.search(line):
        return QUOTE
    return TEXT


def _prefixed(text: str) -> str:
    return re.sub(r"^", "> ", text, flags=re.M)


def preprocess(text: str) -> str:
    text = text.replace("\r\n", "\n")
    text = re.sub(r"\A-----BEGIN PGP SIGNED MESSAGE-----\n(?:Hash: \w+)?\s+", "", text, flags=re.I)
    text = re.sub(r"^-----BEGIN PGP SIGNATURE-----$[\s\S]+^-----END PGP SIGNATURE-----", "", text, flags=_M)
    text = re.sub(r"^Unsubscribe: .+@.+(\n.+http:.+)?\s*\Z", "", text, flags=re.I | re.M)
    text = re.sub(r'^.*>{5} "[^"\n]+" == .+ writes:', "", text, flags=_M)
    text = re.sub(r"^>>> ?(.+) ?>>>$\n([\s\S]+?)\n^<<< ?\1 ?<<<$", lambda m: _prefixed(m.group(2)), text, flags=_M)
    text = re.sub(_blank(r"^>{4,}[ \t]*$\n([\s\S]+?)\n^<{4,}[ \t]*$"), lambda m: _prefixed(m.group(1)), text, flags=_M)
    text = re.sub(_blank(rf"^((?:[ \t]*{_ALPHA}*[>|])+)"),
                  lambda m: re.sub(rf"({_ALPHA}+>|\|)", ">", m.group(1)), text, flags=_M)
    for r in (*ON_DATE_SOMEONE_WROTE_REGEXES, *SOMEONE_WROTE_ON_DATE_REGEXES, *DATE_SOMEONE_WROTE_REGEXES,
              DATE_SOMEONE_EMAIL_REGEX):
        text = r.sub(lambda m: m.group(0) if m.group(0).count("\n") > 4 else re.sub(r"\n+\s*", " ", m.group(0)),
                     text)
    return text.strip()


def _at(regex: str, pattern: str) -> int | None:
    found = re.search(regex, pattern)
    return found.start() if found else None


def _drop_each(kind: str, pattern: str, lines: list[str]) -> tuple[str, list[str]]:
    while (i := _at(kind, pattern)) is not None:
        pattern, lines = pattern[:i] + pattern[i + 1:], lines[:i] + lines[i + 1:]
    return pattern, lines


def trim(text: str | None) -> str | None:
    """What the receiver keeps of ``text`` (Ruby's ``trim`` without ``split``)."""
    if text is None or re.fullmatch(r"\s*", text):
        return None
    text = preprocess(text)
    blocks = {}

    def hoist(m):
        token = uuid.uuid4().hex
        blocks[token] = m.group(0)
        return token

    text = re.sub(r"^```\w*$\n.*?^```$", hoist, text, flags=re.M | re.S)
    lines = text.split("\n")
    while lines and lines[-1] == "":      # Ruby's split drops trailing empty fields
        lines.pop()
    pattern = "".join(identify_line_content(line) for line in lines)

    if (i := _at("d", pattern)) is not None:                  # everything after the first delimiter
        pattern, lines = pattern[:i], lines[:i]
    pattern, lines = _drop_each("s", pattern, lines)          # mobile signatures
    if re.search(r"^b[^t]+t[et]*$", pattern):                 # the reply at the end of the mail
        i = _at(r"t[et]*$", pattern)
        pattern, lines = "", lines[i:]
    if (i := _at(r"te*b[^q]*$", pattern)) is not None:        # an embedded mail not followed by a quote
        pattern, lines = pattern[:i + 1], lines[:i + 1]
    found = re.search(r"te*b[eqbh]*([te]*)$", pattern)        # an embedded mail and a huge quote
    if found and found.group(1).count("t") < 7:
        i = found.start()
        pattern, lines = pattern[:i + 1], lines[:i + 1]
    if (i := _at(r"t?e*[qbe]+$", pattern)) is not None:       # text before a huge quote ending the mail
        pattern, lines = pattern[:i + 1], lines[:i + 1]
    pattern, lines = _drop_each("b", pattern, lines)
    found = re.search(r"h+[hte]+h+e", pattern)                # headers over several lines
    if found:
        pattern = pattern[:found.start()] + EMAIL_HEADER * len(found.group(0)) + pattern[found.end():]
    if (i := _at(r"t[eq]*h{3,}", pattern)) is not None:       # three headers or more
        pattern, lines = pattern[:i + 1], lines[:i + 1]
    pattern, lines = _drop_each("h", pattern, lines)
    if "t" in pattern and (i := _at(r"[eq]+$", pattern)) is not None:   # trailing quotes
        pattern, lines = pattern[:i], lines[:i]
    trimmed = "\n".join(lines).strip()
    for token, block in blocks.items():
        trimmed = trimmed.replace(token, block)
    return trimmed
