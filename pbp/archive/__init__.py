"""The campaign archive (docs/archive.md): what each applied post was, kept when it is
applied (:mod:`pbp.archive.record`), and what is made of it for readers: a static site
(:mod:`pbp.archive.site`), an Atom feed (:mod:`pbp.archive.feed`), a Markdown export
(:mod:`pbp.archive.export`) and the scene's recap (:mod:`pbp.archive.recap`).

Readers are players or the GM (:class:`pbp.archive.view.Reader`): the players' archive holds
exactly what the table's mails held; the GM's holds everything and says so on every page.
"""
