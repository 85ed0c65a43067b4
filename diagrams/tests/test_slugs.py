"""A service's slug is part of the interface: ours is Django's slugify, written out so that
a library upgrade cannot move it, and the renderers stay free of Django."""

import random

import pytest
from django.utils.text import slugify as django_slugify

from diagrams.slugs import is_project_id, project_id_new, service_slug, slugify

NAMES = [
    "Order Service",
    "  payments--gateway__v2  ",
    "Crème Brûlée API",
    "Straße ǅ ﬁle ½ ① Ⅻ",
    "漢字 サービス",
    "a\u00a0b\u2003c\u2009d",
    "_-_leading and trailing_-_",
    "dots.and/slashes\\and:colons",
    "",
]


@pytest.mark.parametrize("name", NAMES)
def test_the_slug_is_djangos(name):
    assert slugify(name) == django_slugify(name)


def test_random_names_slug_as_django_does():
    rng = random.Random(7)
    alphabet = "aZé ß-_.\u00a0\u2003ǅﬁ½①漢٣\t" + "0123456789"
    for _ in range(5000):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
        assert slugify(name) == django_slugify(name), repr(name)


def test_a_name_with_nothing_to_slug_gets_its_hash():
    assert service_slug("漢字").startswith("service-")
    assert len(service_slug("漢字")) == len("service-") + 8


def test_new_project_ids_are_valid_and_random():
    ids = {project_id_new("Shop Platform") for _ in range(50)}
    assert len(ids) == 50
    assert all(is_project_id(i) and i.startswith("shop-platform-") for i in ids)
