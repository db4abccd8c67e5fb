"""Every number README.md marks as a fact is what the current code gives (mmcc.readme_facts)."""

from mmcc import readme_facts


def test_every_quoted_fact_is_current():
    text = readme_facts.README.read_text()
    names = set(readme_facts.quoted(text))
    assert names == set(readme_facts.FACTS), names ^ set(readme_facts.FACTS)
    assert readme_facts.check(text) == []


def test_a_stale_fact_is_reported():
    text = "<!-- fact:thesis-newreno-rtos -->7<!-- /fact -->"
    assert readme_facts.check(text) == ["thesis-newreno-rtos: README says '7', the code gives '0'"]
    assert readme_facts.write(text) == "<!-- fact:thesis-newreno-rtos -->0<!-- /fact -->"
