import hashlib

import pyarrow.parquet as pq

import mmcc

LOSSY = {"links.1.forward.error": {"unit": "byte", "rate": 1e-6}}


def _file_hashes(out):
    return {p.name: hashlib.sha256(pq.read_table(p).to_string(show_metadata=False).encode()).hexdigest()
            for p in sorted(out.glob("*.parquet"))}


def test_same_scenario_and_seed_give_identical_parquet(small_toml, tmp_path):
    a = mmcc.run(str(small_toml), seed=5, sets=LOSSY)
    b = mmcc.run(str(small_toml), seed=5, sets=LOSSY)
    assert a.data_hash() == b.data_hash()
    a.write(tmp_path / "a")
    b.write(tmp_path / "b")
    ha, hb = _file_hashes(tmp_path / "a"), _file_hashes(tmp_path / "b")
    assert ha == hb and len(ha) >= 8
    # the bytes of the files are identical too
    for name in ha:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_different_seed_changes_a_lossy_run(small_toml):
    a = mmcc.run(str(small_toml), seed=5, sets=LOSSY)
    c = mmcc.run(str(small_toml), seed=6, sets=LOSSY)
    assert a.data_hash() != c.data_hash()
