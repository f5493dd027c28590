"""The pure rules core: dice, ladder, outcomes, systems, sheets and the action engine.

Nothing here imports mail, storage, parsing, rendering or I/O. Read in this order:
``ladder`` and ``dice`` (the numbers), ``outcomes`` and ``systems`` (what the numbers
mean in a given game), ``sheets`` (what a character implies), then ``actions`` (resolve
one command), which leans on ``effort``, ``stunts``, ``invokes``, ``names`` (finding what
players type) and ``bookkeeping`` (every change made and reported together).
``state`` and ``results`` are the shared contracts with the rest of pbp.
"""
