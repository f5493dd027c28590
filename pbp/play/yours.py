"""``/settings``: a member's own time zone and quiet hours (:mod:`pbp.play.people`).

What a member sets is theirs: the answer goes to them alone (the GM's copy of the post
says it too, as it says everything the table's mail leaves out).
"""
from __future__ import annotations

from pbp import commands as c
from pbp.errors import CommandError
from pbp.play.core import GM, NoteResult, Post, Tell, handles
from pbp.play.people import MemberSettings, SettingError, member_settings


@handles(c.MemberSet)
def settings(post: Post, cmd: c.MemberSet):
    """Set (or, with nothing after it, show) the author's own settings."""
    who = post.author.email
    try:
        new = member_settings(post.play.people.get(who), cmd.values)
    except SettingError as e:
        raise CommandError(str(e), expected=e.expected, example=e.example) from None
    if cmd.values:
        if new == MemberSettings():
            post.play.people.pop(who, None)
        else:
            post.play.people[who] = new
    text = f"Your settings: {new.shown()}." + ("" if cmd.values else
                                                 " Change them with /settings tz=Europe/Lisbon quiet=23-08.")
    if post.author.is_gm:
        return NoteResult(cmd.source, GM, "settings", text=text, gm_only=True)
    post.tell(Tell(to=(who,), subject="Your settings", text=text + "\n"))
    return NoteResult(cmd.source, post.speaker(), "settings", text=text, public_text="")
