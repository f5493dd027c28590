"""Play-by-post prose uses ``---`` and ``***`` as scene breaks: commands below one are the
author's, while a signature or an older mail below a delimiter still never runs."""
from __future__ import annotations

from pbp.mail.trim import trim_reply


def test_commands_after_a_scene_break_are_kept():
    text = "Ruth waits.\n\n---\n\nLater that night...\n/overcome Stealth vs Fair\n\nRuth"
    assert "/overcome Stealth vs Fair" in trim_reply(text)
    assert "/overcome" in trim_reply("A.\n***\n/overcome Stealth vs Fair\n")


def test_a_signature_delimiter_still_cuts():
    text = "Ruth waits.\n/overcome Stealth vs Fair\n\n-- \nRuth Smith\n/attack Ghoul with Fight"
    assert trim_reply(text) == "Ruth waits.\n/overcome Stealth vs Fair"


def test_a_delimiter_before_an_old_mail_still_cuts():
    text = ("Ruth waits.\n________________________________\nFrom: Table <t@x>\nSent: Monday\nTo: Ruth\n"
            "Subject: x\n\n/attack Ghoul with Fight")
    assert "/attack" not in trim_reply(text)


def test_a_delimiter_with_only_a_signature_below_cuts():
    assert trim_reply("Hi.\n/fp\n----\nRuth\nTable of five") == "Hi.\n/fp"
