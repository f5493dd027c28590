"""The ``pbp`` command line's commands, by subject; :mod:`pbp.cli` builds the parser,
runs ``main`` and holds set-up (``init``, ``campaign``) and ``run``."""
