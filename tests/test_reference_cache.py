"""The reference smoke run's cache is used only when it carries the grader's own HMAC of its numbers."""
import json

import pytest

from solutions.week7_attention.served import reference_runs


@pytest.fixture
def cache(tmp_path, monkeypatch):
    path = tmp_path / "reference-smoke.json"
    monkeypatch.setattr(reference_runs, "CACHE", path)
    reference_runs.smoke_run.cache_clear()
    yield path
    reference_runs.smoke_run.cache_clear()


def test_cache_written_signed_and_reused(cache):
    first = reference_runs.smoke_run()
    record = json.loads(cache.read_text())
    assert record["mac"] and record["key"] and record["test"] == first.test
    reference_runs.smoke_run.cache_clear()
    assert reference_runs.smoke_run() == first


@pytest.mark.parametrize("forge", ["wrong loss, old mac", "wrong loss, no mac", "wrong loss, own mac"])
def test_forged_cache_is_never_used(cache, forge):
    """Attack 4 of issue 10: a valid key with a wrong loss made every later grade lose training points."""
    honest = reference_runs.smoke_run()
    record = json.loads(cache.read_text())
    record["test"] = 2.5
    if forge == "wrong loss, no mac":
        del record["mac"]
    elif forge == "wrong loss, own mac":
        import hashlib
        import hmac
        record["mac"] = hmac.new(b"guessed secret", json.dumps(record).encode(), hashlib.sha256).hexdigest()
    cache.write_text(json.dumps(record))
    reference_runs.smoke_run.cache_clear()
    assert reference_runs.smoke_run() == honest  # recomputed, not read
    assert json.loads(cache.read_text())["test"] == honest.test  # and the forgery replaced
