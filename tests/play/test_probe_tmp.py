import sys; sys.path.insert(0, "/tmp")
from probe import run
def test_probe(mt):
    run(mt)
    assert 0
