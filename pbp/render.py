"""Replies: outcomes and sheets rendered with the Jinja templates in ``templates/``, and the
mail that carries them (threading headers, text and HTML parts).

The templates lay the mail out; the small filters here turn dice, ladder values and
changes into the glyphs players read ("[+] [0] [-] [+]", "Great (+4)", "FP 3 -> 2").
"""
from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import timezone
from email.header import Header
from email.quoprimime import body_encode
from email.utils import format_datetime, formataddr
from typing import TYPE_CHECKING

import jinja2

from pbp.mail.reading import SYNTHETIC_ID_DOMAIN
from pbp.resources import resource_path
from pbp.rules.ladder import adjective, describe, signed
from pbp.rules.results import ActionResult, Change
from pbp.textsafety import MAX_NAME, MAX_SUBJECT, header_text, is_addr_spec, is_msg_id, shorten

if TYPE_CHECKING:  # pragma: no cover
    from pbp.pipeline import Context

log = logging.getLogger("pbp.render")

FACE = {1: "[+]", 0: "[0]", -1: "[-]"}
OUTCOME_WORDS = {"fail": "fail", "tie": "tie", "success": "success", "style": "success with style"}
VERBS = {
    "overcome": "{actor} overcomes with {skill}",
    "advantage": "{actor} creates an advantage with {skill}",
    "attack": "{actor} attacks {target} with {skill}",
    "defend": "{actor} defends with {skill}",
}
CHANGE_WORDS = {"fate_points": "FP", "free_invokes": "free invokes", "stress": "stress", "aspect": "aspect",
                "boost": "boost", "consequence": "consequence", "gm_pool": "pool", "escrow": "escrow",
                "carried_points": "carried points"}


def faces(roll) -> str:
    if roll.sides == "F":
        return " ".join(FACE[f] for f in roll.faces)
    return " ".join(f"[{f}]" for f in roll.faces)


def ladder(n: int) -> str:
    """"+4 Great" as in the result rows; numbers beyond the ladder stay numbers."""
    word = adjective(n)
    return f"{signed(n)} {word}" if word else signed(n)


def change_text(ch) -> str:
    """One change as players read it: "Ruth FP 3 -> 2", "Ethan's free invokes on On Fire
    0 -> 1", "On Fire created"."""
    before = "none" if ch.before is None else ch.before
    if ch.what == "aspect" and ch.detail == "renamed":
        return f"{ch.before} renamed {ch.after}"
    if ch.what == "aspect":
        return f"{ch.subject} {ch.after}"
    if ch.what == "free_invokes" and " (held by " in ch.subject:
        aspect, holder = ch.subject[:-1].split(" (held by ", 1)
        after = "gone" if ch.after in (None, 0) else ch.after
        return f"{holder}'s free invokes on {aspect} {before} -> {after}"
    what = CHANGE_WORDS.get(ch.what, ch.what.replace("_", " "))
    after = "gone" if ch.after in (None, 0) and ch.what == "boost" else ch.after
    return f"{ch.subject} {what} {before} -> {after}"


def tidy(text: str) -> str:
    """Plain text as it should travel: no trailing spaces, at most one blank line in a row."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.rstrip()
        if not line and (not out or not out[-1]):
            continue
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def coalesce(changes: list) -> list:
    """One entry per thing changed, from its first "before" to its last "after" (two
    points spent in one post read "FP 3 -> 1"); things that ended where they began drop out.
    A character's consequences are several things (one /absorb may take a mild and a
    moderate): each is followed from name to name on its own."""
    merged: dict[tuple, Change] = {}
    for ch in changes:
        key = (ch.what, ch.subject)
        if ch.what == "consequence":    # one entry per slot: the chain of one consequence's names
            key = next((k for k, m in merged.items() if k[:2] == key and ch.before is not None
                        and m.after == ch.before), (*key, len(merged)))
        first = merged.get(key)
        merged[key] = ch if first is None else Change(ch.what, ch.subject, first.before, ch.after, ch.detail)
    return [ch for ch in merged.values() if ch.before != ch.after or ch.what == "aspect"]


def brief(sheet: dict) -> str:
    """A changed sheet on one line: "Ruth: FP 2 · physical [x][ ][ ] · mild "Nasty Bite"
    · holds 1 on On Fire"."""
    parts = [f"{sheet['name']}: FP {sheet['fate_points']}"]
    if sheet.get("carried_points"):
        parts[0] += f" (carries {sheet['carried_points']} into the GM's next pool)"
    for track, boxes in sheet["stress"].items():
        if boxes:
            parts.append(f"{track} " + "".join("[x]" if b else "[ ]" for b in boxes))
    for q in sheet["consequences"]:
        if q["aspect"]:
            parts.append(f'{q["severity"]} "{q["aspect"]}"' + (" (recovering)" if q["recovering"] else ""))
    held = sheet.get("free_invokes_held") or {}
    if held:
        parts.append("holds " + ", ".join(f"{n} on {name}" for name, n in held.items()))
    if sheet["taken_out"]:
        parts.append("TAKEN OUT")
    return " · ".join(parts)


@dataclass(frozen=True)
class Row:
    label: str
    text: str
    value: str = ""


def action_rows(res: ActionResult) -> list[Row]:
    """The working of a roll, one row per term: dice, each modifier with its source,
    rerolls, effort, opposition."""
    effort = res.effort
    rows = [Row("dice", faces(effort.rolls[0]), signed(effort.rolls[0].total))]
    for use in effort.invokes:
        if use.reroll is not None:
            rows.append(Row("reroll", f"{faces(use.reroll)} (invoke {use.aspect}, {_paid(use)})", signed(use.reroll.total)))
    for mod in effort.modifiers:
        if mod.source == "skill":
            continue
        if mod.source == "modifier":       # a plain +N: "bonus" fits the column, the label says nothing more
            rows.append(Row("bonus" if mod.value > 0 else "penalty", "", signed(mod.value)))
        else:
            rows.append(Row(mod.source, mod.label, signed(mod.value)))
    for use in effort.invokes:
        if use.paid_with == "skipped":
            rows.append(Row("invoke", f"{use.aspect} (if needed: not needed, not spent)", ""))
    rows.append(Row("effort", "", ladder(effort.total)))
    opp = res.opposition
    if opp is not None:
        if opp.effort is None:
            rows.append(Row("vs", opp.label or describe(opp.value), ""))
        else:
            o = opp.effort
            mods = "".join(f", {m.label} {signed(m.value)}" for m in o.modifiers if m.source != "skill")
            skill = next((m for m in o.modifiers if m.source == "skill"), None)
            skill_txt = f"{skill.label} {describe(skill.value)}" if skill else (o.skill or "")
            rows.append(Row("vs", f"{opp.character}: {skill_txt}, dice {faces(o.dice)}{mods}", ladder(opp.value)))
    return rows


def _paid(use) -> str:
    return {"free": "free", "boost": "boost", "fp": "fate point"}.get(use.paid_with, use.paid_with)


def headline(res: ActionResult) -> str:
    if res.action == "roll":
        return f"{res.actor} rolls {res.command.split(None, 1)[1] if ' ' in res.command else 'the dice'}"
    skill_mod = next((m for m in res.effort.modifiers if m.source == "skill"), None)
    skill = res.skill or "no skill"
    if skill_mod is not None:
        skill = f"{skill}, {describe(skill_mod.value)}"
    target = next((e.data.get("target") for e in res.effects if e.data.get("target")), None)
    if target is None and res.opposition is not None:
        target = res.opposition.character
    return VERBS.get(res.action, "{actor} rolls {skill}").format(actor=res.actor, skill=skill, target=target or "")


def verdict(res: ActionResult) -> str:
    if res.outcome is None:
        return f"total {ladder(res.effort.total)}"
    word = OUTCOME_WORDS[res.outcome.value]
    s = res.shifts or 0
    if res.outcome.value == "fail":
        return f"{word}, {-s} shift{'s' if s != -1 else ''} short"
    if res.outcome.value == "tie":
        return word
    return f"{word}, {s} shift{'s' if s != 1 else ''}"


class Renderer:
    """The Jinja environment (built once) and one method per kind of reply, each
    returning (plain text, HTML)."""

    def __init__(self) -> None:
        loader = jinja2.FileSystemLoader(str(resource_path("templates", "")))
        common = dict(loader=loader, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                      undefined=jinja2.StrictUndefined)
        self.text_env = jinja2.Environment(autoescape=False, **common)
        self.html_env = jinja2.Environment(autoescape=True, **common)
        for env in (self.text_env, self.html_env):
            env.filters.update(faces=faces, ladder=ladder, describe=describe, signed=signed, change=change_text, brief=brief)
            env.globals.update(action_rows=action_rows, headline=headline, verdict=verdict,
                               is_action=lambda r: isinstance(r, ActionResult))

    def _both(self, name: str, **data) -> tuple[str, str]:
        text = self.text_env.get_template(f"{name}.txt.j2").render(**data)
        return (tidy(text), self.html_env.get_template(f"{name}.html.j2").render(**data))

    def result(self, *, mail, campaign, results, ledger, commands, sheets, relay: bool, asks=(),
               status=(), template: str = "result", notes=()) -> tuple[str, str]:
        """The post with each command replaced by its result (relay), or the results alone
        (list mode, deadline rounds: ``commands`` None), then the changes, what pbp waits
        for, whose turn it is, the reader's notes (lines that looked like commands but were
        not read as ones) and the sheets that changed. ``template`` "gm_copy": the same, as
        the GM's own copy of what the table's mail left out (:mod:`pbp.views`)."""
        blocks = []  # ("prose", text, None) | ("result", res, (roll id, ledger hash) or None)
        if commands is None:
            blocks = [("result", res, ledger.get(id(res))) for res in results]
        else:
            by_line = {cmd.line: res for cmd, res in zip(commands, results)}
            for number, line in enumerate(mail.new_text.splitlines(), start=1):
                if number in by_line:
                    res = by_line[number]
                    blocks.append(("result", res, ledger.get(id(res))))
                elif relay:
                    blocks.append(("prose", line, None))
            # results beyond one per command: actions held until their turn, run by this post
            blocks += [("result", res, ledger.get(id(res))) for res in results[len(commands):]]
        while blocks and blocks[0][0] == "prose" and not blocks[0][1].strip():
            blocks.pop(0)
        while blocks and blocks[-1][0] == "prose" and not blocks[-1][1].strip():
            blocks.pop()
        changes = coalesce([ch for res in results for ch in res.changes])
        return self._both(template, campaign=campaign, blocks=blocks, changes=changes, ledger=ledger, sheets=sheets,
                          relay=relay, asks=list(asks), status=list(status), notes=list(notes))

    def tell(self, *, campaign, tell) -> tuple[str, str]:
        return self._both("tell", campaign=campaign, tell=tell)

    def error(self, *, mail, campaign, errors, status=()) -> tuple[str, str]:
        shown = [e.shown() if hasattr(e, "shown") else e for e in errors]
        return self._both("error", mail=mail, campaign=campaign, errors=shown, status=list(status))

    def stranger(self, *, mail, campaign) -> tuple[str, str]:
        return self._both("stranger", mail=mail, campaign=campaign)

    def duplicate(self, *, mail, campaign, seen, original, kind: str = "resent") -> tuple[str, str]:
        """The note for a mail that repeats an earlier one (``kind``: ``resent``, ``copy``,
        ``forward``; ``not_yours`` and ``forward_of_other`` show nothing of the original)."""
        body = ""
        if original is not None:
            import email as _email
            from email import policy

            msg = _email.message_from_string(original.raw, policy=policy.default)
            part = msg.get_body(("plain",))
            body = part.get_content() if part is not None else ""
        return self._both("duplicate", mail=mail, campaign=campaign, seen=seen, original_text=body, kind=kind)

    def sheet(self, sheet: dict) -> str:
        return self.text_env.get_template("sheet.txt.j2").render(sheet=sheet)


def mime_alternative(headers: list[tuple[str, str]], text: str, html: str) -> str:
    """A multipart/alternative mail (text, then HTML), both parts UTF-8 quoted-printable.

    Written directly rather than through ``email.message``: our header values are already
    encoded (and folded where long), and the generator's header folding cost more than
    everything else in a reply. ``tests/test_render.py`` reads the result back with the
    standard parser."""
    boundary = f"=_pbp_{uuid.uuid4().hex}"
    lines = [f"{name}: {value}" for name, value in headers]
    lines += ["MIME-Version: 1.0", f'Content-Type: multipart/alternative;\n boundary="{boundary}"', "",
              "This is a multi-part message in MIME format.", ""]
    for subtype, body in (("plain", text), ("html", html)):
        lines += [f"--{boundary}", f'Content-Type: text/{subtype}; charset="utf-8"',
                  "Content-Transfer-Encoding: quoted-printable", "",
                  # quoprimime encodes code points below 256 as bytes: hand it UTF-8 bytes as latin-1
                  body_encode(body.replace("\r\n", "\n").encode("utf-8").decode("latin-1"), eol="\n").rstrip("\n"), ""]
    lines += [f"--{boundary}--", ""]
    return "\n".join(lines)


@dataclass(frozen=True)
class Reply:
    message_id: str
    sender: str
    to: list[str]
    subject: str
    in_reply_to: str | None
    raw: str


#: References kept in a reply: the thread's first id and the latest ones (RFC 5537
#: section 3.4.4 trims so; RFC 5322 section 3.6.4 has the parent's id last).
MAX_REFERENCES = 20
#: Longest subject pbp writes (before encoding): under RFC 5322's 998 characters a line
#: whatever the campaign name and suffix, and still readable in a mail list.
MAX_REPLY_SUBJECT = 2 * MAX_SUBJECT


def reply_subject(subject: str, campaign_name: str, suffix: str = "") -> str:
    """"Re: [Campaign] subject": one Re:, one campaign tag. The incoming subject is
    cleaned and shortened to :data:`~pbp.textsafety.MAX_SUBJECT` (a 5,000-character
    subject gets a short reply subject, not a 5,000-character header)."""
    base = header_text(subject, 10 * MAX_SUBJECT)
    while base[:3].lower() in ("re:", "aw:", "sv:"):
        base = base[3:].strip()
    base = header_text(base.split(" — ", 1)[0], MAX_SUBJECT)  # our own "— Charles, defend by ..."
    tag = f"[{header_text(campaign_name, MAX_NAME)}]"
    if tag.lower() not in base.lower():
        base = f"{tag} {base}".strip()
    return f"Re: {base}{suffix}"


def encode_header(name: str, value: str) -> str:
    """A header value as written: ASCII as it is when the line is short, otherwise RFC 2047
    encoded words (UTF-8) or ASCII folded at spaces, each line well under 998 characters."""
    if value.isascii() and len(name) + len(value) < 76:
        return value
    return Header(value, "utf-8" if not value.isascii() else "us-ascii", header_name=name).encode()


def _threading(mail) -> tuple[str | None, list[str]]:
    """The ids to write into In-Reply-To and References: only ids that :func:`is_msg_id`
    accepts (never raw 8-bit bytes or a broken id), each once, the first and the last
    :data:`MAX_REFERENCES` - 1 when the chain is longer. A post without a usable id of its
    own (none, or one too long to keep: it has a synthetic id) is answered unthreaded."""
    own = mail.message_id and not mail.message_id.endswith("@" + SYNTHETIC_ID_DOMAIN)  # not one pbp made up
    parent = mail.message_id if own and is_msg_id(mail.message_id) else None
    refs = [r for r in dict.fromkeys([*mail.references, *([parent] if parent else [])]) if is_msg_id(r)]
    if len(refs) > MAX_REFERENCES:
        refs = refs[:1] + refs[-(MAX_REFERENCES - 1):]
    return parent, refs


def build_reply(ctx: "Context", *, mail, campaign, kind: str, body: tuple[str, str], to: list[str],
                subject: str | None = None, subject_suffix: str = "") -> Reply:
    """The outgoing mail to ``to``, threaded to ``mail`` when there is one (a deadline round
    starts a thread of its own).

    Nothing that reaches a header here is trusted, even what pbp checked when it was
    stored: recipients and the sender must be addr-specs (others are dropped and logged; a
    reply left with no recipient has ``to == []`` and is not queued), names and subjects
    pass through :func:`~pbp.textsafety.header_text`, ids through
    :func:`~pbp.textsafety.is_msg_id`. So no value can end a header line early, add a
    header, or make a line longer than RFC 5322 allows."""
    text, html = body
    name = header_text(campaign.name, MAX_NAME)
    sender = campaign.address if campaign.address and is_addr_spec(campaign.address) else ctx.config.from_address
    good = [a for a in to if is_addr_spec(a)]
    if len(good) != len(to):
        log.warning("campaign %s: not writing to invalid address(es) %s", campaign.slug,
                    ", ".join(repr(shorten(a, 80)) for a in to if not is_addr_spec(a)))
    if subject is None:
        suffix = " (not applied)" if kind == "error" else subject_suffix
        subject = reply_subject(mail.subject, name, suffix) if mail is not None else \
            f"[{name}] {subject_suffix.lstrip(' —') or 'Deadlines'}"
    elif f"[{name}]" not in subject:
        subject = f"[{name}] {subject}"
    subject = header_text(subject, MAX_REPLY_SUBJECT)
    message_id = f"<pbp.{uuid.uuid4().hex}@{ctx.config.domain}>"
    headers = [
        ("From", formataddr((f"{name} (pbp)", sender), charset="utf-8")),
        ("To", ",\n ".join(good)),
        ("Subject", encode_header("Subject", subject)),
        ("Date", format_datetime(ctx.clock().replace(tzinfo=timezone.utc))),
        ("Message-ID", message_id),
    ]
    parent, refs = _threading(mail) if mail is not None else (None, [])
    if parent:
        headers += [("In-Reply-To", f"<{parent}>"), ("References", "\n ".join(f"<{r}>" for r in refs))]
    headers += [("Auto-Submitted", "auto-replied"), ("X-PBP-Campaign", header_text(campaign.slug, 63))]
    raw = mime_alternative(headers, text, html)
    return Reply(message_id=message_id.strip("<>"), sender=sender, to=good, subject=subject,
                 in_reply_to=parent, raw=raw)
