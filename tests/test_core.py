"The core module (00_core): `hardware()` closes what it opens."
import gc, warnings
import pytest

@pytest.mark.slow
def test_hardware_closes_what_it_opens():
    from transformer_nb.core import hardware
    gc.collect()                                        # what earlier tests left to the collector is not hardware()'s
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always'); hardware(); gc.collect()
    assert not [x for x in w if issubclass(x.category, ResourceWarning)], [str(x.message) for x in w]
