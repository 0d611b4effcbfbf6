"""Words in Russian and English: every built-in variant speaks both whole (each key its games
use has both), the kit refuses a translation that lacks a word, and ListVariants sends them."""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import start_server
from bezique.service.translate import variant_info
from bezique.variants.api import BaseVariant, Vocabulary
from bezique.variants.bezique.melds import CLASS_NAMES, KINDS
from bezique.variants.bezique.variant import BEZIQUE_2P, BEZIQUE_3P
from bezique.variants.conformance import (
    ConformanceError,
    check_vocabulary,
    check_vocabulary_covers,
    outcome_key,
    random_game,
)
from bezique.variants.host import vocabularies_of
from bezique.variants.quart.evaluator import HandRules, reference_evaluate_faces
from bezique.variants.quart.variant import QuartBezique, TrumpQuartBezique
from bezique.variants.registry import load_registry
from bezique.variants.words import HOST_WORDS
from tests.helpers import highcard_registry, server_config

BUILT_IN: tuple[BaseVariant, ...] = (BEZIQUE_2P, BEZIQUE_3P, QuartBezique(), TrumpQuartBezique())
LATIN, CYRILLIC = re.compile("[A-Za-z]"), re.compile("[А-Яа-яЁё]")


@pytest.mark.parametrize("variant", BUILT_IN, ids=lambda v: v.id)
def test_every_built_in_speaks_russian_and_english_whole(variant: BaseVariant) -> None:
    check_vocabulary(variant)
    check_vocabulary_covers(variant, games=2)
    check_vocabulary_covers(variant, {"claims": False, "target": 300} if "bezique-" in variant.id
                            else {"deals": "3"}, games=2, first_game=5)
    words = vocabularies_of(variant)
    assert list(words) == ["en", "ru"]
    for language, vocabulary in words.items():
        assert vocabulary.language == language and vocabulary.title
        assert set(vocabulary.options) == {spec.name for spec in variant.options}
        assert set(HOST_WORDS[language].outcomes) <= set(vocabulary.outcomes)
    for name, texts in words["ru"].maps().items():  # every Russian word is Russian
        for key, text in texts.items():
            assert not LATIN.search(text) or CYRILLIC.search(text), (name, key, text)


def test_the_russian_names_follow_the_rule_texts() -> None:
    titles = {v.id: vocabularies_of(v)["ru"].title for v in BUILT_IN}
    assert titles == {"bezique-2p": "Безик вдвоём (2 колоды)",
                      "bezique-3p": "Безик втроём (3 колоды)",
                      "quart-bezique": "Кварт-Безик",
                      "trump-quart-bezique": "Козырной Кварт-Безик"}
    bezique = vocabularies_of(BEZIQUE_2P)
    assert (bezique["en"].labels["bezique"], bezique["ru"].labels["bezique"]) == ("bezique",
                                                                                  "безик")
    assert bezique["ru"].labels["common_marriage"] == "марьяж"
    quart = vocabularies_of(QuartBezique())["ru"]
    assert quart.labels["koronka-3"].startswith("коронка")
    assert quart.labels["two-beziques"] == "2 безика"


def test_every_meld_and_combination_has_words_in_both_languages() -> None:
    melds = set(KINDS) | set(CLASS_NAMES)
    for language, words in vocabularies_of(BEZIQUE_3P).items():
        assert melds <= set(words.labels), (language, melds - set(words.labels))
    named: set[str] = set()
    for faces in itertools.combinations_with_replacement(
            [rank * 4 + suit for rank in range(9, 15) for suit in range(4)], 4):
        for any_qj in ("QS+JD", "any_QJ"):
            named |= {part for name, cls, _points, _where in
                      reference_evaluate_faces(faces, HandRules(any_qj))[1]
                      for part in (name, cls)}
    assert len(named) == 10  # 8 combinations, 3 classes, "bezique" both
    for language, words in vocabularies_of(TrumpQuartBezique()).items():
        assert named <= set(words.labels), (language, named - set(words.labels))


def test_a_quart_outcome_that_names_a_number_finds_its_words() -> None:
    played = random_game(QuartBezique(), {"deals": "2"}, game_no=3)
    outcome = played.game.outcome()
    assert outcome is not None and outcome.reason == "2 deals played"
    words = vocabularies_of(QuartBezique())
    key = outcome_key(words["ru"].outcomes, outcome.reason, outcome.detail)
    assert key == "{deals} deals played"
    assert words["en"].outcomes[key].format(**outcome.detail) == "most chips after 2 deals"
    assert words["ru"].outcomes[key].format(**outcome.detail) == "больше всех фишек после 2 сдач"


class Worded(QuartBezique):
    id = "worded"


def test_the_kit_refuses_a_translation_that_lacks_a_word_or_misnames_its_language() -> None:
    variant = Worded()
    own, translations = variant.vocabulary, dict(variant.translations)
    russian = translations["ru"]
    lacking = dict(russian.events)
    del lacking["fold"]
    variant.translations = {"ru": replace(russian, events=lacking)}
    with pytest.raises(ConformanceError, match=r"events lacks \['fold'\]"):
        check_vocabulary(variant)
    variant.translations = {"de": russian}
    with pytest.raises(ConformanceError, match="says its language is 'ru'"):
        check_vocabulary(variant)
    variant.translations = {"ru": replace(russian, title="")}
    with pytest.raises(ConformanceError, match="no title"):
        check_vocabulary(variant)
    fewer = dict(own.events)
    del fewer["fold"]
    variant.vocabulary = replace(own, events=fewer)
    variant.translations = {"ru": replace(russian, events=lacking)}
    check_vocabulary(variant)  # both lack it alike ...
    with pytest.raises(ConformanceError, match=r"events \['fold'\]"):
        check_vocabulary_covers(variant, games=3)  # ... but its games show it


async def test_list_variants_sends_both_languages() -> None:
    server = await start_server(server_config(), load_registry())
    try:
        async with AsyncTableClient(server.address, retries=0) as client:
            infos = {info.id: info for info in await client.list_variants()}
    finally:
        await server.stop()
    quart = infos["quart-bezique"]
    assert quart.vocabulary.language == "en" and quart.vocabulary.title == "Quart-Bezique"
    russian = quart.translations["ru"]
    assert (russian.language, russian.title) == ("ru", "Кварт-Безик")
    assert russian.labels["marriage"] == "марьяж"
    assert russian.outcomes["abandoned"].startswith("заброшена")
    assert quart.vocabulary.outcomes["abandoned"].startswith("abandoned")
    assert set(russian.events) == set(quart.vocabulary.events)
    assert infos["bezique-2p"].translations["ru"].labels["royal_marriage"] == "козырный марьяж"
    highcard = variant_info(highcard_registry().variant("highcard"), ["random"])
    assert not highcard.translations and highcard.vocabulary.language == "en"  # its own only
    assert highcard.vocabulary.outcomes["aborted"]  # the server's reasons, in its language


def test_host_words_speak_every_built_in_language() -> None:
    assert set(HOST_WORDS) == {"en", "ru"}
    assert set(HOST_WORDS["en"].outcomes) == set(HOST_WORDS["ru"].outcomes)
    assert isinstance(HOST_WORDS["ru"], Vocabulary)
