"""The pipeline's parts below :mod:`pbp.pipeline`, by the way a post goes: its context and
outcome, its commit, the replies it sends, its other endings, the clock's posts."""
