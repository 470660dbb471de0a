"""Checks that score answers, blind labels, votes and win rates: pure values."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.core.compare import BlindLabels, Check, Vote, score, win_rates
from desktop.core.compare.checks import CheckError, numbers_in


@pytest.mark.parametrize(
    ("data", "text", "passes"),
    [
        ({"contains": "Canberra"}, "The capital is CANBERRA.", True),
        ({"contains": "Canberra", "case_sensitive": True}, "the capital is canberra", False),
        ({"contains": ["长江", "扬子江"]}, "中国最长的河流是长江。", True),
        ({"contains": ["长江", "扬子江"]}, "黄河", False),
        ({"regex": r"\b17[:.]15\b"}, "It arrives at 17:15.", True),
        ({"regex": r"\b17[:.]15\b"}, "It arrives at 117:155.", False),
        ({"regex": "def\\s+f\\("}, "DEF f(x): pass", True),  # case-insensitive by default
        ({"exact": "yes"}, "  Yes.\n", True),
        ({"exact": "yes"}, "Yes, of course.", False),
        ({"exact": ["是", "对"]}, "是。", True),
        ({"numeric": 180}, "12 pencils cost 180 cents.", True),
        ({"numeric": 180}, "They cost 1,800 cents.", False),
        ({"numeric": 1800}, "They cost 1,800 cents.", True),
        ({"numeric": 334}, "最后要付３３４元。", True),  # full-width digits
        ({"numeric": 3.14, "tolerance": 0.01}, "pi is about 3.1416", True),
        ({"numeric": -3}, "the answer is −3", True),  # a minus sign, not a hyphen
        ({"numeric": 9}, "nine", False),
    ],
)
def test_each_kind_of_check(data: dict[str, object], text: str, passes: bool) -> None:
    check = Check.from_dict(data)
    assert check.passes(text) is passes
    assert Check.from_dict(check.to_dict()) == check


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("Canberra", "must be an object"),
        ({}, "exactly one"),
        ({"contains": "a", "regex": "b"}, "exactly one"),
        ({"contains": "a", "weight": 2}, "unknown: weight"),
        ({"contains": ""}, "non-empty"),
        ({"contains": 5}, "a text or a list"),
        ({"regex": "("}, "not valid"),
        ({"numeric": "many"}, "must be a number"),
        ({"numeric": True}, "must be a number"),
        ({"numeric": 1, "tolerance": -1}, "negative"),
        ({"contains": "a", "tolerance": 1}, "only a numeric"),
        ({"exact": "a", "case_sensitive": "yes"}, "true or false"),
    ],
)
def test_unusable_checks_say_why(data: object, message: str) -> None:
    with pytest.raises(CheckError, match=message):
        Check.from_dict(data)


def test_a_score_counts_passed_checks() -> None:
    checks = [Check.from_dict({"contains": "Vellanoweth"}), Check.from_dict({"numeric": 23})]
    result = score(checks, "Corin Vellanoweth kept 22 goats.")
    assert result is not None
    assert (result.passed, result.total, result.ratio) == (1, 2, 0.5)
    assert [r.to_dict() for r in result.results] == [
        {"check": 'contains "Vellanoweth"', "passed": True},
        {"check": "number 23", "passed": False},
    ]
    assert score([], "anything") is None


def test_numbers_are_read_as_written() -> None:
    assert numbers_in("1,234.5 and 7, 8 and -2") == [1234.5, 7.0, 8.0, -2.0]


@given(st.integers(min_value=2, max_value=6), st.integers())
def test_blind_labels_are_a_shuffled_letter_per_contestant(n: int, seed: int) -> None:
    labels = BlindLabels.shuffled(n, seed)
    assert sorted(labels.order) == list(range(n))
    assert labels == BlindLabels.shuffled(n, seed)  # the seed reproduces it
    assert labels.labels == tuple("ABCDEF"[:n])
    for contestant in range(n):
        assert labels.contestant(labels.label(contestant)) == contestant
    with pytest.raises(ValueError, match="labelled"):
        labels.contestant("Z")


def test_blind_order_is_not_the_given_order_for_some_seeds() -> None:
    orders = {BlindLabels.shuffled(4, seed).order for seed in range(20)}
    assert len(orders) > 5


def test_win_rates_from_pairwise_and_best_of_n_votes() -> None:
    votes = [
        Vote(0, "win", winner=1),  # best of three: B wins
        Vote(1, "win", winner=0, among=(0, 1)),  # pairwise A vs B
        Vote(2, "tie", among=(0, 2)),
        Vote(3, "all_bad"),
    ]
    rates = {r.contestant: r for r in win_rates(votes, 3)}
    assert (rates[0].wins, rates[0].ties, rates[0].losses, rates[0].bad) == (1, 1, 1, 1)
    assert rates[0].rate == pytest.approx(1.5 / 4)
    assert (rates[1].wins, rates[1].losses, rates[1].bad) == (1, 1, 1)
    assert rates[1].rate == pytest.approx(1 / 3)
    assert (rates[2].ties, rates[2].losses, rates[2].bad) == (1, 1, 1)
    assert rates[2].describe() == "0 W / 1 T / 1 L / 1 bad (17%)"
    assert win_rates([], 2)[0].rate is None
    assert win_rates([], 2)[0].describe() == "-"


def test_voting_again_on_a_prompt_replaces_the_vote() -> None:
    votes = [Vote(0, "win", winner=0, at=1.0), Vote(0, "win", winner=1, at=2.0)]
    rates = win_rates(votes, 2)
    assert (rates[0].wins, rates[1].wins) == (0, 1)


def test_votes_must_make_sense() -> None:
    with pytest.raises(ValueError, match="winner"):
        Vote(0, "win")
    with pytest.raises(ValueError, match="winner"):
        Vote(0, "tie", winner=1)
    with pytest.raises(ValueError, match="among"):
        Vote(0, "win", winner=2, among=(0, 1))
    with pytest.raises(ValueError, match="outcome"):
        Vote(0, "meh")  # type: ignore[arg-type]
