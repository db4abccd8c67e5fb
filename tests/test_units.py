import pytest

from mmcc.units import UnitError, parse_rate, parse_size, parse_time


@pytest.mark.parametrize("text,expect", [
    ("2.5MB", 2_500_000), ("2.5 MB", 2_500_000), ("0.25MiB", 262_144), ("20MiB", 20 * 2**20),
    ("1400B", 1400), ("1400", 1400), (6553600, 6553600), ("1.5KB", 1500), ("64KiB", 65536),
])
def test_sizes(text, expect):
    assert parse_size(text) == expect


@pytest.mark.parametrize("text,expect", [
    ("1Gbps", 10**9), ("100 Mb/s", 10**8), ("2.5Gbps", 2_500_000_000), ("64kbps", 64_000), ("1e9bps", 10**9),
])
def test_rates(text, expect):
    assert parse_rate(text) == expect


@pytest.mark.parametrize("text,expect", [
    ("20ms", 20_000_000), ("1s", 10**9), ("125us", 125_000), ("0.5 s", 500_000_000), ("2min", 120 * 10**9),
])
def test_times(text, expect):
    assert parse_time(text) == expect


@pytest.mark.parametrize("fn,bad,needle", [
    (parse_size, "2.5 parsecs", 'unknown size unit "parsecs"'),
    (parse_size, "lots", "is not a size"),
    (parse_size, "-3MB", "non-negative"),
    (parse_size, "1.5B", "whole number of bytes"),
    (parse_rate, "1GBps", 'unknown rate unit "GBps"'),
    (parse_rate, 1000, "has no unit"),
    (parse_time, "20", "has no unit"),
    (parse_time, "3 fortnights", "unknown time unit"),
    (parse_time, True, "is not a time"),
])
def test_bad_quantities_name_the_accepted_units(fn, bad, needle):
    with pytest.raises(UnitError) as e:
        fn(bad)
    assert needle in str(e.value)
    assert "accepted units" in str(e.value) or "non-negative" in str(e.value) or "whole number" in str(e.value)
