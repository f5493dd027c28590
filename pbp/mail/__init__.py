"""Reading mail: a raw message in, the author's new text out.

- :func:`read_message` (``reading``): MIME, charsets, HTML, headers -> :class:`Mail`.
- :func:`trim_reply` / :func:`split_reply` (``trim``): cut quotes, attributions, older
  mails and signatures, using the line classifier in ``lines``.
"""
from pbp.mail.reading import Mail, read_message
from pbp.mail.trim import split_reply, trim_reply

__all__ = ["Mail", "read_message", "split_reply", "trim_reply"]
