import itertools

import pytest

from huebench import color
from huebench.color.wheel import derive_relations, relations
from huebench.errors import UnknownNameError


def test_eleven_basic_terms_in_rainbow_order():
    assert color.basic_terms() == [
        "white",
        "yellow",
        "orange",
        "red",
        "pink",
        "purple",
        "blue",
        "green",
        "brown",
        "gray",
        "black",
    ]


def test_stored_relations_cover_every_pair_and_equal_the_rule():
    stored = relations()
    assert len(stored) == 55
    terms = color.basic_terms()
    assert set(stored) == {frozenset(p) for p in itertools.combinations(terms, 2)}
    assert stored == derive_relations()


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("red", "orange", "adjacent"),
        ("orange", "yellow", "adjacent"),
        ("pink", "purple", "adjacent"),
        ("yellow", "green", "adjacent"),  # Rainbow's Fig. 11 discusses green-yellow as adjacent
        ("green", "blue", "adjacent"),
        ("blue", "purple", "adjacent"),
        ("red", "pink", "adjacent"),
        ("brown", "orange", "adjacent"),
        ("white", "gray", "adjacent"),
        ("gray", "black", "adjacent"),
        ("yellow", "blue", "complementary"),
        ("Blue", "Yellow", "complementary"),
        ("white", "black", "complementary"),
        ("red", "green", "complementary"),
        ("red", "blue", "other"),
        ("red", "white", "other"),
        ("brown", "blue", "other"),
        ("grey", "purple", "other"),
    ],
)
def test_relation_spot_checks(a, b, expected):
    assert color.relation(a, b) == expected
    assert color.relation(b, a) == expected


def test_counts_by_relation():
    values = list(relations().values())
    assert values.count("adjacent") == 11  # 7 around the wheel, 2 for brown, 2 on the lightness axis
    assert values.count("complementary") == 6


def test_relation_errors():
    with pytest.raises(ValueError, match="same basic term"):
        color.relation("gray", "grey")
    with pytest.raises(UnknownNameError, match="Did you mean 'purple'"):
        color.relation("purpel", "red")
    with pytest.raises(UnknownNameError, match="not one of the 11 basic colour terms"):
        color.relation("cyan", "red")
