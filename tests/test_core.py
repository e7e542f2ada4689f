"The core module (00_core) and the machine module (lib_machine): `hardware()` closes what it opens; bad arguments are named."
import gc, warnings
import pytest

@pytest.mark.slow
def test_hardware_closes_what_it_opens():
    from transformer_nb.lib.machine import hardware
    gc.collect()                                        # what earlier tests left to the collector is not hardware()'s
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always'); hardware(); gc.collect()
    assert not [x for x in w if issubclass(x.category, ResourceWarning)], [str(x.message) for x in w]


@pytest.mark.parametrize('bad', ['gpu', 1.5, 'cuda:x'])
def test_get_device_names_what_is_not_a_device(bad):
    "A name that is no device: one line naming the value and the names there are, not PyTorch's list of backends."
    from transformer_nb.lib.machine import get_device
    with pytest.raises(ValueError) as e: get_device(bad)
    assert str(e.value) == f"device={bad!r} must be a device: 'auto', 'cpu', 'cuda', 'cuda:N' or 'mps'", str(e.value)


def test_precision_names_a_bad_argument():
    "A precision that is not one of the three names is refused in one line that names the value."
    from transformer_nb.lib.machine import precision_dtype
    with pytest.raises(ValueError, match=r"^precision=\['fp32'\] must be 'fp32', 'bf16' or 'fp16'$"): precision_dtype(['fp32'])

def test_notebook_threads_honours_tnb_threads_and_caps_by_default(monkeypatch):
    "A notebook's thread cap: TNB_THREADS, else OMP_NUM_THREADS, else half the usable cores; a bad TNB_THREADS is named in one line, as limit_threads names it."
    import os, torch
    from transformer_nb.lib.machine import notebook_threads, _default_threads, _TORCH_THREADS, limit_threads
    from transformer_nb.lib.options import SettingError
    before = torch.get_num_threads()
    try:
        monkeypatch.delenv('TNB_THREADS', raising=False); monkeypatch.delenv('OMP_NUM_THREADS', raising=False)
        assert notebook_threads() == _default_threads() == max(1, len(os.sched_getaffinity(0)) // 2)
        monkeypatch.setenv('TNB_THREADS', '1'); assert notebook_threads() == 1 == torch.get_num_threads()
        monkeypatch.setenv('TNB_THREADS', '0'); assert notebook_threads() == _TORCH_THREADS
        for bad, says in (('two', "TNB_THREADS='two' in the environment must be a count of threads written with the digits 0-9"),
                          ('5000', 'TNB_THREADS=5000 must be an int in [0, 1024]')):
            monkeypatch.setenv('TNB_THREADS', bad)
            for f in (notebook_threads, limit_threads):                 # the same words in both
                with pytest.raises(SettingError) as e: f()
                assert str(e.value).startswith(says), str(e.value)
    finally: torch.set_num_threads(before)
