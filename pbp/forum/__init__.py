"""Forum adapters: Discourse by mail (``bymail.py``) and by its REST API (``byapi.py``, and its
webhooks), each a row of the adapter table (``pbp/adapters.py``). None reads the database:
each is handed the campaign's roster (``pbp.posts.Roster``).

Read in this order:

    bymail.py     a bound category's mailing-list mail -> a neutral ``pbp.posts.NeutralPost``; the
                  table's answer -> a reply-by-email mail Discourse accepts (docs/forum.md)
    markdown.py   what a post's Markdown means on both paths: BBCode quotes are never the author's
    models.py     what an adapter yields (``InboundPost``) and takes (``OutboundReply``): the
                  neutral value objects the coming post-speaking pipeline will consume
    settings.py   ``DiscourseSettings``: the site, the bot account, the API key from a secret source
    errors.py     ``ForumError`` and its subclasses (rate limited, unavailable, refused, bad shape)
    retry.py      ``RetryPolicy``: bounded retries, 429 waits, exponential backoff on 5xx
    discourse.py  ``DiscourseClient``: polling ``GET /posts.json`` with a cursor, reading posts,
                  replying and private messages with ``POST /posts.json``
    webhook.py    the webhook signature check and ``post_created``/``post_edited`` to ``InboundPost``
    webhook_server.py  ``pbp run`` serving the webhook on ``[discourse] webhook_port``

    byapi.py      a polled ``InboundPost`` -> a ``pbp.posts.NeutralPost``; a ``Reply`` -> the JSON of an
                  ``OutboundReply`` in the outbox (channel ``discourse``), posted by ``ForumPoster``; the daemon polls
                  (``Daemon.poll_forum``). See docs/forum.md.
"""
