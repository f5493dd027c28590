"""``/settings``: a member's own time zone, quiet hours and delivery mode
(:mod:`pbp.play.people`); ``/mute`` and ``/unmute`` a scene (:mod:`pbp.play.mailing`).

What a member sets is theirs: the answer goes to them alone (the GM's copy of the post
says it too, as it says everything the table's mail leaves out).
"""
from __future__ import annotations

from pbp import commands as c
from pbp.errors import CommandError
from pbp.i18n import Joined, Msg
from pbp.play.core import GM, NoteResult, Post, Tell, handles
from pbp.play.people import MemberSettings, SettingError, member_settings, mute_scene


@handles(c.MemberSet)
def settings(post: Post, cmd: c.MemberSet):
    """Set (or, with nothing after it, show) the author's own settings."""
    who = post.author.email
    try:
        new = member_settings(post.play.people.get(who), cmd.values, post.now)
    except SettingError as e:
        raise CommandError(str(e), expected=e.expected, example=e.example) from None
    if cmd.values:
        if new == MemberSettings():
            post.play.people.pop(who, None)
        else:
            post.play.people[who] = new
    text = Msg("Your settings: {settings}.", settings=new.shown())
    if not cmd.values:
        text = Joined([text, Msg(" Change them with /settings tz=Europe/Lisbon quiet=23-08 mail=every|mine|digest.")])
    return _yours(post, cmd, "settings", Msg("Your settings"), text)


def _yours(post: Post, cmd, action: str, subject: str, text: str):
    """The answer to a member's own setting: to them alone."""
    if post.author.is_gm:
        return NoteResult(cmd.source, GM, action, text=text, gm_only=True)
    post.tell(Tell(to=(post.author.email,), subject=subject, text=Joined([text, "\n"])))
    return NoteResult(cmd.source, post.speaker(), action, text=text, public_text="")


def open_scenes(post: Post) -> list[str]:
    """The names of the scenes open now: the one in play, then the others."""
    names = [post.play.scene.name] if post.play.scene is not None else []
    return names + [p.scene.name for p in post.play.elsewhere]


@handles(c.MuteScene)
def mute(post: Post, cmd: c.MuteScene):
    """Mute (or unmute) a scene for the author: the one named, else the one the post acts in."""
    word = "mute" if cmd.on else "unmute"
    current = post.play.people.get(post.author.email) or MemberSettings()
    known = open_scenes(post) + ([] if cmd.on else list(current.muted))
    if cmd.scene is None:
        if post.play.scene is None:
            example = f'/{word} "{known[0]}"' if known else "/table"
            raise CommandError(f"/{word} names no scene and no scene is in play here",
                               expected="the name of an open scene, in quotes", example=example)
        scene = post.play.scene.name
    else:
        scene = next((n for n in known if n.casefold() == cmd.scene.casefold()), None)
        if scene is None:
            what = "open scenes: " + ", ".join(f'"{n}"' for n in dict.fromkeys(known)) if known else "no scene is open"
            raise CommandError(f'no scene "{cmd.scene}" to {word} ({what})',
                               expected="the name of an open scene" + ("" if cmd.on else " or of one you muted"),
                               example=f'/{word} "{known[0]}"' if known else "/table")
    new = mute_scene(current, scene, cmd.on)
    if new == MemberSettings():
        post.play.people.pop(post.author.email, None)
    else:
        post.play.people[post.author.email] = new
    text = (f'Muted "{scene}": its table mail reaches you only when it concerns you (your turn, your defence, '
            f'a reply to you). /unmute "{scene}" takes it back.' if cmd.on else
            f'"{scene}" is no longer muted: you get its table mail as your settings say ({new.shown()}).')
    return _yours(post, cmd, word, f'Muted "{scene}"' if cmd.on else f'Unmuted "{scene}"', text)
