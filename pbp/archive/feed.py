"""The campaign's Atom feed (RFC 4287): one entry per post, oldest last as readers expect
(newest first), the players' view only, whoever builds it. Each entry's id is a tag URI
made of the campaign and the post's archive row, so it never changes; its link is the
post's permalink in the site (relative to ``base_url`` when the site is served)."""
from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from pbp.archive.markup import markdown_html, ooc_html, text_html
from pbp.archive.view import Reader, build
from pbp.store import models as m


def _stamp(when) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def atom(campaign: m.Campaign, base_url: str = "") -> str:
    archive = build(campaign, Reader(gm=False))
    base = base_url.rstrip("/") + "/" if base_url else ""
    tag = f"tag:pbp.archive,{campaign.created_at:%Y-%m-%d}:{campaign.slug}"
    entries = [(s, e) for s in archive.scenes for e in s.entries]
    updated = max((e.at for _, e in entries), default=campaign.created_at)
    out = ['<?xml version="1.0" encoding="utf-8"?>', '<feed xmlns="http://www.w3.org/2005/Atom">',
           f"<title>{escape(campaign.name)}</title>", f"<id>{escape(tag)}</id>", f"<updated>{_stamp(updated)}</updated>",
           f"<author><name>{escape(campaign.name)}</name></author>",
           f"<link rel=\"alternate\" type=\"text/html\" href={quoteattr(base + 'index.html')}/>",
           f"<link rel=\"self\" type=\"application/atom+xml\" href={quoteattr(base + 'feed.atom')}/>"]
    for scene, e in reversed(entries):
        body = text_html(e) + ooc_html(e) + (markdown_html(e.shown) if e.shown else "")
        out += ["<entry>", f"<title>{escape(f'{e.author} in {scene.title}')}</title>",
                f"<id>{escape(tag)}/post-{e.row.id}</id>", f"<updated>{_stamp(e.at)}</updated>",
                f"<author><name>{escape(e.author)}</name></author>",
                f"<link rel=\"alternate\" type=\"text/html\" href={quoteattr(f'{base}{scene.page}#{e.anchor}')}/>",
                f'<content type="html">{escape(body)}</content>', "</entry>"]
    out.append("</feed>")
    return "\n".join(out) + "\n"
