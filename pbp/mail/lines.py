"""What each line of a reply is: the classifier half of the reply trimmer.

Every line of a mail body gets one *kind*, a single letter, so that the scanner in
:mod:`pbp.mail.trim` can look at the whole body as a short string such as ``"tteebqqqe"``
and find where the old mail starts with a few patterns over that string:

=====  ==============  ==========================================================
kind   name            examples
=====  ==============  ==========================================================
``e``  EMPTY           a blank line
``d``  DELIMITER       ``-- ``, ``________________________________``, ``***``
``s``  FOOTER          ``Sent from my iPhone``, ``Von meinem iPad gesendet``
``b``  ATTRIBUTION     ``On Mon, 3 Jun 2024 at 10:00, Ruth <ruth@x> wrote:``,
                       ``---------- Forwarded message ---------``
``h``  HEADER          ``From: Ruth <ruth@x>``, ``Gesendet: Montag, 3. Juni 2024``
``q``  QUOTE           ``> an older mail``, ``| older``, ``Ruth> older``
``t``  TEXT            anything else
=====  ==============  ==========================================================

Mail clients wrap long attributions (Gmail: ``On Mon, 3 Jun 2024 at 10:00, Ruth
<ruth@x>\\nwrote:``), so an attribution may span up to five lines; all of them get ``b``.
Lines inside a closed ````` fence are code, never delimiters or footers.

Attributions must carry a date or an address, which keeps prose such as ``On the bridge
the old man said:`` out of them. The languages are those that real clients use and that
the reply-trimmer test data (Discourse's ``email_reply_trimmer``) contains.
"""
from __future__ import annotations

import re

EMPTY = "e"
DELIMITER = "d"
FOOTER = "s"
ATTRIBUTION = "b"
HEADER = "h"
QUOTE = "q"
TEXT = "t"

#: the most lines one wrapped attribution may take
ATTRIBUTION_SPAN = 5
#: longer lines are prose: no client writes an attribution this long
ATTRIBUTION_MAX_CHARS = 400

_LEAD_CHARS = " \t\u00a0>*-"  # quote markers, "----" and "*" (bold) before an attribution
_TAIL_CHARS = " \t\u00a0.:：*-"  # what may follow its last word
_TAIL = r"[\s.:：*\-]*$"
_DATEISH = re.compile(r"\d{4}|\d{1,2}[:.h]\d{2}|\d{1,2}/\d{1,2}/\d{2}")
_EMAIL = r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+"
_DATE_FIRST = r"(?=[^\s>]*\d|\w+[,.]\s*\d|在)"  # 23 mar 2017, 2013/7/20, понедельник, 6 ..., man. 3. jun., 在 2016年
_SOMEONE_AT = r"[^@]{1,200}@[\w\-]+(?:\.[\w\-]+)+"  # a name and an address, without backtracking

# "On <date>, <someone>" openers, by language
_OPENERS = r"(?:On|At|In message|Le|Am|Il|Op|Em|El|Dnia|Dňa|Dne|Den|W dniu|På)"
# verbs that end an attribution ("... wrote:")
_WROTE = (
    r"(?:wrote|writes|a\s+écrit|nous\s+a\s+dit|schrieben\s+Sie|schrieb|geschrieben"
    r"|ha\s+scritto|het\s+volgende\s+geschreven|schreef|escreveu|escribió|escribi[oó]"
    r"|napisał(?:\(a\))?|napsal(?:\(a\))?|skrev|kirjoitti|написал[аи]?|пише|写道|寫道)"
)
# verbs followed by the author ("Am <date> schrieb Ruth <ruth@x>:")
_WROTE_THEN_SOMEONE = r"(?:schrieb|schreef|skrev|wrote|escribió|a\s+écrit)"

# Each family is anchored where a client starts the line (after any quote markers): an
# opener word, a date, or the author's name with the address.
_ON_DATE_WROTE = (  # On Mon, 3 Jun 2024 at 10:00, Ruth <ruth@x> wrote:   Le 4 janv. 2016, Neil a écrit :
    _OPENERS + r"\s.{1,300}\s" + _WROTE + _TAIL)
_ON_DATE_WROTE_SOMEONE = (  # Am 03.02.2016 3:35 schrieb Max <max@x>:   Den 15. jun. 2016 skrev Jeff <j@x>:
    _OPENERS + r"\s.{1,200}?\s" + _WROTE_THEN_SOMEONE + r"\s.{1,200}[:：]" + _TAIL)
_DATE_SOMEONE_WROTE = (  # 23 mar 2017 21:25 "Neil" <n@x> napisał(a):   понедельник, 6 октября 2014 г. ... написал:
    _DATE_FIRST + r".{0,300}\s" + _WROTE + r"\s*[:：]" + _TAIL)
_SOMEONE_WROTE_ON_DATE = (  # Max <max@x> schrieb am Fr., 28. Apr. 2017 um 11:53 Uhr:
    _SOMEONE_AT + r".{0,20}?\s(?:wrote\s+on|schrieb\s+am)\s.{1,100}[:：]" + _TAIL)
_DATE_SOMEONE_EMAIL = (  # 2016-10-24 15:36 GMT+02:00 Foo <foo@x>:   2013/7/20 sam via Discourse Meta <i@x>
    r"(?=.{0,40}\d{4})" + _DATE_FIRST + r".{0,200}<\s*" + _EMAIL + r"\s*>\s*[:：]?" + _TAIL)
_ISO_DATE_SOMEONE = (  # 2016-03-03 17:21 GMT+01:00 Some One
    r"\d{4}-\d\d-\d\d \d\d?:\d\d GMT[+\-]\d\d:\d\d [^<>@:]+$")
_SOMEONE_EMAIL_WROTE = (  # Ruth <ruth@x> wrote:   codinghorror via Discourse Meta <i@x> schrieb:
    r"(?:" + _SOMEONE_AT + r"|.{1,100}?\svia\s).{0,200}(?:\s" + _WROTE + r"|写道|寫道)\s*[:：]?" + _TAIL)
_ORIGINAL_MARKER = (  # -----Original Message-----   -----Ursprüngliche Nachricht-----: the mail replied to
    r"^[\s>*]*-{2,}\s*(?:Original(?:e)? message|Reply message|Ursprüngliche Nachricht|Originalnachricht"
    r"|Antwort Nachricht|Mensaje original|Message d'origine|Message original|Messaggio originale"
    r"|Mensagem original|Oorspronkelijk bericht|Origineel bericht|Originalmeddelande"
    r"|Ursprungligt meddelande|Oprindelig meddelelse|Opprinnelig melding|Alkuperäinen viesti"
    r"|Oryginalna wiadomość|Wiadomość oryginalna|Původní zpráva|Pôvodná správa|Eredeti üzenet"
    r"|Originalna poruka|Izvirno sporočilo|Mesaj original|Orijinal mesaj|Özgün ileti"
    r"|Исходное сообщение|Оригинальное сообщение|Вихідне повідомлення|Αρχικό μήνυμα"
    r"|原始邮件|原始郵件|元のメッセージ|원본 메시지)\s*-{2,}[\s*]*$")
_FORWARD_MARKER = (  # ---------- Forwarded message ---------   Begin forwarded message:
    r"^[\s>*]*-{2,}\s*(?:Forwarded message|Forwarded e-?mail|Weitergeleitete Nachricht"
    r"|Mensaje reenviado|Message transféré|Messaggio inoltrato|Mensagem encaminhada"
    r"|Doorgestuurd bericht|Vidarebefordrat meddelande|Videresendt melding|Wiadomość przekazana"
    r"|Пересылаемое сообщение|Пересланное сообщение|转发邮件信息)\s*-{2,}[\s*]*$"
    r"|^[\s>*]*(?:Begin forwarded message|Anfang der weitergeleiteten Nachricht"
    r"|Début du message (?:transféré|réexpédié)|Inizio messaggio inoltrato"
    r"|Comienzo del mensaje reenviado|Início da mensagem reencaminhada"
    r"|Begin doorgestuurd bericht|Vidarebefordrat brev)\s*:" + _TAIL)


def _any_of(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


# The dated families are those a client wraps over lines: they start with an opener or a
# date, or name the author with the address on the first line, so a join cannot swallow
# the prose above.
_DATED = _any_of(_ON_DATE_WROTE, _ON_DATE_WROTE_SOMEONE, _DATE_SOMEONE_WROTE, _SOMEONE_WROTE_ON_DATE,
                 _DATE_SOMEONE_EMAIL)
_ISO_DATED = re.compile(_ISO_DATE_SOMEONE)
_ADDRESSED = re.compile(_SOMEONE_EMAIL_WROTE, re.IGNORECASE)
_ORIGINAL = re.compile(_ORIGINAL_MARKER, re.IGNORECASE)
_FORWARD = re.compile(_FORWARD_MARKER, re.IGNORECASE)
# the same verbs as plain endings, for a cheap test before any of the patterns above
_WROTE_ENDINGS = ("wrote", "writes", "a écrit", "nous a dit", "schrieben sie", "schrieb", "geschrieben",
                  "ha scritto", "geschreven", "schreef", "escreveu", "escribió", "escribio", "napisał",
                  "napisał(a)", "napsal", "napsal(a)", "skrev", "kirjoitti", "написал", "написала",
                  "написали", "пише", "写道", "寫道")
_WRAP_START = re.compile(_OPENERS + r"\s|[^\s>]*\d|\w+[,.]\s*\d|在|[^@]{0,200}@", re.IGNORECASE)

_SENDER_HEADERS = ("from", "von", "de", "da", "van", "från", "fra", "od", "от", "发件人", "寄件者",
                   "expéditeur", "kimden")
_DATE_HEADERS = ("sent", "date", "sendt", "gesendet", "datum", "enviado", "enviada em", "fecha",
                 "data", "inviato", "verzonden", "skickat", "le", "envoyé", "wysłano", "odesláno",
                 "отправлено", "дата", "发送时间", "日期", "tarih")
_TEXT_HEADERS = ("to", "cc", "bcc", "reply-to", "subject", "an", "antwort an", "betreff", "para",
                 "asunto", "assunto", "à", "objet", "destinataire", "répondre à", "a", "risposta",
                 "oggetto", "aan", "beantwoorden - aan", "onderwerp", "till", "ämne", "til", "emne",
                 "do", "temat", "кому", "копия", "тема", "收件人", "抄送", "主题", "收件者", "主旨",
                 "kime", "konu", "kopie", "kopia", "komu", "předmět", "cco")


def _alternation(names: tuple[str, ...]) -> str:
    return "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in sorted(names, key=len, reverse=True))


_HEADER = re.compile(
    r"^[\s*]*(?:(?P<dated>" + _alternation(_DATE_HEADERS) + r")[\s*]*[:：][^\d\n]*\d"
    r"|(?P<name>" + _alternation(_SENDER_HEADERS + _TEXT_HEADERS) + r")[\s*]*[:：].*?\w)",
    re.IGNORECASE,
)

_QUOTE = re.compile(r"^\s*(?:>|[A-Za-z]{1,12}>|\|(?!.*\|\s*$))")
_DELIMITER = re.compile(r"^\s*(?:[\-_,=+~#*ᐧ—]+|-----BEGIN PGP SIGNATURE-----)\s*$")
_EMPTY = re.compile(r"^[\s\u200b\u200c\u200d\u2060\ufeff]*$")
_MARKDOWN_LINK = re.compile(r"\[([^\]\n]+)\]\([^)\n]+\)")
_FENCE = re.compile(r"^```")

_DEVICES = (r"(?:iphone|ipad|ipod|android|mobile|phone|cell|samsung|galaxy|blackberry|tablet"
            r"|pixel|huawei|nokia|htc|motorola|xiaomi|smartphone)")
_FEW_WORDS = r"\S+(?:\s+\S+){0,5}"  # a device or an app, not a sentence of prose
_FOOTER = re.compile(
    r"^\s*(?:"
    r"[(<]*\s*sent\s+(?:from|via|with|by)\s+(?:my(?:\s+\S+){1,9}|\S+(?:\s+\S+){0,4})"
    r"|\w+\s+from\s+mobile\b.*"
    r"|from\s+my\s+.{0,20}?" + _DEVICES + r"\s*[\w.\-]{0,10}"
    r"|get\s+outlook\s+for\s.*"
    r"|envoyé\s+(?:depuis|de)\s+(?:mon|ma|yahoo|l'application)\s" + _FEW_WORDS
    + r"|von\s+meinem\s+.{1,60}\s+gesendet.*"
    r"|gesendet\s+von\s+(?:meinem\s" + _FEW_WORDS + r"|iphone|ipad|mail\s+für\s.*|yahoo\s.*)"
    r"|diese\s+nachricht\s+wurde\s+von\s+.{1,80}\s+gesendet.*"
    r"|inviato\s+da(?:l\s+mio)?\s+" + _FEW_WORDS
    + r"|sendt\s+fra\s+min\s" + _FEW_WORDS
    + r"|(?:skickat\s+)?från\s+min\s" + _FEW_WORDS
    + r"|enviado\s+(?:do|desde)\s+(?:meu|mi|o|el)\s" + _FEW_WORDS
    + r"|verzonden\s+(?:met|vanaf)\s" + _FEW_WORDS
    + r"|verstuurd\s+vanaf\s+mijn\s" + _FEW_WORDS
    + r"|wysłane\s+z\s" + _FEW_WORDS
    + r"|отправлено\s+с\s" + _FEW_WORDS
    + r"|從我的\s*\S+\s*傳送|发自我的\s*\S+|寄自我的\s*\S+"
    r")\s*$",
    re.IGNORECASE,
)


def classify_line(line: str) -> str:
    """The kind of one line on its own (a wrapped attribution needs :func:`classify`)."""
    if _EMPTY.match(line):
        return EMPTY
    if _DELIMITER.match(line):
        return DELIMITER
    if _FOOTER.match(_MARKDOWN_LINK.sub(r"\1", line) if "](" in line else line):
        return FOOTER
    if _ORIGINAL.match(line) or _FORWARD.match(line) or is_attribution(line):
        return ATTRIBUTION
    if _HEADER.match(line):
        return HEADER
    if _QUOTE.match(line):
        return QUOTE
    return TEXT


def is_attribution(text: str, *, wrapped: bool = False) -> bool:
    """Whether ``text`` (one line, or the lines of a wrapped one joined by spaces) says who
    wrote the quote below it. It must end like one (``wrote``, ``:``, ``<address>``) and
    carry a date, or name the author by address; cheap tests run first."""
    if len(text) > ATTRIBUTION_MAX_CHARS or not _ends_like_attribution(text):
        return False
    core = text.lstrip(_LEAD_CHARS)
    if _DATEISH.search(core) and (_DATED.match(core) or not wrapped and _ISO_DATED.match(core)):
        return True
    return not wrapped and ("@" in core or " via " in core) and bool(_ADDRESSED.match(core))


def _ends_like_attribution(text: str) -> bool:
    """``...wrote``, ``...:``, ``...<x@y>`` or Gmail's ``... GMT+01:00 Some One``."""
    end = text.rstrip()
    if end.endswith((":", "：")):
        return True
    end = end.rstrip(_TAIL_CHARS)
    return (end.endswith(">") or " ".join(end[-24:].split()).lower().endswith(_WROTE_ENDINGS)
            or "GMT" in text)


def classify(lines: list[str]) -> str:
    """The kinds of all lines as one string, ``kinds[i]`` being the kind of ``lines[i]``."""
    kinds = [classify_line(line) for line in lines]
    _mark_wrapped_attributions(lines, kinds)
    _mark_tab_quotes(lines, kinds)
    _mark_code(lines, kinds)
    return "".join(kinds)


def is_forward_marker(line: str) -> bool:
    """``---------- Forwarded message ---------``, ``Begin forwarded message:``..."""
    return bool(_FORWARD.match(line))


def is_original_marker(line: str) -> bool:
    """``-----Original Message-----`` and its translations: the replied-to mail follows."""
    return bool(_ORIGINAL.match(line))


def header_name(line: str) -> str | None:
    """The header a ``h`` line names, lower-cased (``"from"``, ``"gesendet"``...)."""
    found = _HEADER.match(line)
    if not found:
        return None
    return re.sub(r"\s+", " ", (found.group("dated") or found.group("name")).lower())


def is_sender_header(name: str | None) -> bool:
    return name in _SENDER_HEADERS


def is_date_header(name: str | None) -> bool:
    return name in _DATE_HEADERS


#: the headers that name who a mail went to (a subset of the text headers above)
_RECIPIENT_HEADERS = ("to", "an", "para", "à", "destinataire", "a", "aan", "till", "til", "do", "komu",
                      "кому", "收件人", "收件者", "kime")


def is_recipient_header(name: str | None) -> bool:
    return name in _RECIPIENT_HEADERS


def _mark_wrapped_attributions(lines: list[str], kinds: list[str]) -> None:
    """Give ``b`` to every line of an attribution that a client wrapped over several lines.

    The scan looks back from each line that could end one (``wrote:``, ``<x@y>:``...) and
    joins at most :data:`ATTRIBUTION_SPAN` lines, shortest first. A quoted line joins only
    a quoted end (the ``> wrote:`` of a wrap may look quoted, the start may not).

    What never joins, because a join turns the author's lines into attribution and so cuts
    them: a command line (no client wraps an attribution onto a line starting with ``/``),
    anything above an end that is a whole dated attribution on its own (``On Mon, 3 Jun
    2024 at 10:00, GM <gm@x> wrote:`` needs no start line, so a prose line above it such
    as "On the dock she waits" stays prose), and, above an end that is an attribution on
    its own, a line ending a sentence."""
    for end, line in enumerate(lines):
        if kinds[end] in (EMPTY, DELIMITER, HEADER) or len(line) > ATTRIBUTION_MAX_CHARS:
            continue
        if not _ends_like_attribution(line):
            continue
        alone = kinds[end] == ATTRIBUTION
        if alone and _is_dated(line):
            continue
        for start in range(end - 1, max(-1, end - ATTRIBUTION_SPAN), -1):
            if kinds[start] in (DELIMITER, HEADER) or _COMMAND.match(lines[start]):
                break
            if kinds[start] == EMPTY:
                continue
            if kinds[start] == QUOTE and not _QUOTE.match(line):
                break
            if alone and _SENTENCE_END.search(lines[start]):
                break
            if not _WRAP_START.match(lines[start].lstrip(_LEAD_CHARS)):
                continue
            joined = " ".join(part.strip() for part in lines[start:end + 1] if part.strip())
            if len(joined) > ATTRIBUTION_MAX_CHARS:
                break
            if is_attribution(joined, wrapped=True):
                for i in range(start, end + 1):
                    kinds[i] = ATTRIBUTION
                break


_COMMAND = re.compile(r"[\s>]*/[^\W\d_]")
_SENTENCE_END = re.compile(r"[.!?…\"”»]\s*$")


def _is_dated(line: str) -> bool:
    """A whole dated attribution on one line (``On <date>, <someone> wrote:``)."""
    core = line.lstrip(_LEAD_CHARS)
    return bool(_DATEISH.search(core) and _DATED.match(core))


def _mark_tab_quotes(lines: list[str], kinds: list[str]) -> None:
    """mailx and s-nail quote with a tab, not ``>``: once an attribution has a tab-indented
    line right below it (blank lines between allowed), that line and every later
    tab-indented line (the quote resumed between inline answers) are the older mail."""
    after_attribution = quoting = False
    for i, line in enumerate(lines):
        if kinds[i] == ATTRIBUTION:
            after_attribution = True
        elif kinds[i] == EMPTY:
            continue
        elif line.startswith("\t") and (quoting or after_attribution):
            kinds[i] = QUOTE
            quoting = True
        else:
            after_attribution = False


def _mark_code(lines: list[str], kinds: list[str]) -> None:
    """Inside a closed ````` fence a ``---`` or ``Sent from`` line is code, not a footer."""
    opened = None
    for i, line in enumerate(lines):
        if not _FENCE.match(line):
            continue
        if opened is None:
            opened = i
            continue
        for j in range(opened, i + 1):
            if j in (opened, i) or kinds[j] in (DELIMITER, FOOTER):
                kinds[j] = TEXT
        opened = None
