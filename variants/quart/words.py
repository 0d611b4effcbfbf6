"""Quart-Bezique's words for people, in English and in Russian (the rules' own language): what
a generic client calls its phases, events, zones, details, moves, combinations, outcomes and
options (sent by ListVariants, see :class:`~bezique.variants.api.Vocabulary`). The Russian
names of the game and its combinations follow the rule text (shared seeds: "Кварт-Безик",
"козырной Кварт-Безик", "марьяж", "безик", "коронка", "2 безика", "вскрыть", "кон");
both languages have every key (the conformance kit checks)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

from bezique.variants.api import BaseVariant, Vocabulary

VOCABULARY = Vocabulary(  # the options' words are their declarations' (see vocabularies)
    language="en",
    phases={"betting": "Betting", "over": "Over"},
    events={"ante": "puts {amount} in as the ante", "deal": "is dealt",
            "dealer": "is the first dealer", "deal_start": "deals", "lot": "draws for the deal",
            "fold": "folds", "bet": "calls, putting in {amount}",
            "raise": "raises, putting in {amount}", "allin": "goes all-in with {amount}",
            "show": "shows, putting in {amount}", "reveal": "shows",
            "pot_won": "wins {amount} from the pot",
            "carry_over": "{amount} chips are carried over to the next deal",
            "sit_out": "sits the deal out (no chips for the ante)",
            "trump": "turns up the trump card", "deal_end": "the deal ends",
            "table_end": "the table ends",
            "stake_returned": "gets back {amount} staked this deal",
            "carry_returned": "gets {amount} of the carried pot back"},
    zones={"hand": "Hand", "stock": "Stock", "trump": "Trump card",
           "muck/folded": "Folded cards", "muck/shown": "Shown cards"},
    details={"all_in": "all-in", "by": "by", "card": "card", "card_points": "card points",
             "carried": "carried pot", "combination_points": "combination points",
             "combinations": "combinations", "contribution": "in the pot",
             "deal": "deal", "dealer": "dealer", "deals": "deals", "draw": "draw",
             "hand": "hand", "has_combination": "has a combination", "level": "level",
             "points": "points", "pot": "pot", "reason": "reason", "seats": "seats",
             "stack": "stack", "stacks": "stacks", "suit": "suit", "ante": "ante",
             "bezique_cards": "bezique cards", "contributions": "in the pot",
             "folded": "folded", "in_deal": "in the deal", "max_bet": "max raise",
             "min_bet": "min raise", "players_in": "players in", "raise_range": "raise to",
             "to_call": "to call", "trump": "trumps",
             "trump_doubles_combinations": "trump doubles combinations",
             "name": "combination", "class": "kind", "concealed": "concealed"},
    moves={"fold": "give up this deal and what you put in",
           "bet": "call: match the level",
           "show": "match the level; the hands still in are compared",
           "raise": "lift the level; the others match it or fold",
           "allin": "put in your whole stack"},
    outcomes={"fewer than two seats can pay the ante": "most chips: fewer than two seats "
                                                       "could pay the ante",
              "{deals} deals played": "most chips after {deals} deals"},
    labels={"marriage": "marriage", "koronka-3": "koronka of three",
            "koronka-4": "koronka of four", "three-of-a-kind": "three of a kind",
            "four-kings": "four kings", "four-of-a-kind": "four of a kind",
            "bezique": "bezique", "two-beziques": "two beziques",
            "same-suit": "same suit", "same-rank": "same rank",
            "last-standing": "everyone else folded", "uncontested": "uncontested",
            "showdown": "best hand at the showdown",
            "no-combination-split": "split: nobody had a combination",
            "QS+JD": "Q♠ + J♦", "any_QJ": "any queen + any jack",
            "carry_over": "carry the pot over", "split": "split the pot"},
)

RUSSIAN = Vocabulary(
    language="ru",
    phases={"betting": "Торговля", "over": "Конец"},
    events={"ante": "ставит на кон {amount}", "deal": "получает карты",
            "dealer": "сдаёт первым", "deal_start": "сдаёт", "lot": "тянет жребий на сдачу",
            "fold": "бросает карты", "bet": "уравнивает, ставит {amount}",
            "raise": "повышает, ставит {amount}", "allin": "ставит всё: {amount}",
            "show": "вскрывается, ставит {amount}", "reveal": "вскрывает карты",
            "pot_won": "выигрывает {amount} с кона",
            "carry_over": "{amount} фишек остаются на кону до следующей сдачи",
            "sit_out": "пропускает сдачу (нечем поставить на кон)",
            "trump": "открывает козырь", "deal_end": "сдача окончена",
            "table_end": "игра окончена",
            "stake_returned": "получает назад {amount}, поставленные в этой сдаче",
            "carry_returned": "получает {amount} из оставшегося кона"},
    zones={"hand": "Рука", "stock": "Колода", "trump": "Козырь",
           "muck/folded": "Брошенные карты", "muck/shown": "Вскрытые карты"},
    details={"all_in": "всё поставлено", "by": "как", "card": "карта",
             "card_points": "очки за карты", "carried": "оставшийся кон",
             "combination_points": "очки за комбинации", "combinations": "комбинации",
             "contribution": "на кону", "deal": "сдача", "dealer": "сдатчик",
             "deals": "сдачи", "draw": "жребий", "hand": "рука",
             "has_combination": "есть комбинация", "level": "ставка", "points": "очки",
             "pot": "кон", "reason": "причина", "seats": "игроки", "stack": "фишки",
             "stacks": "фишки", "suit": "масть", "ante": "ставка на кон",
             "bezique_cards": "карты безика", "contributions": "на кону",
             "folded": "бросил", "in_deal": "в сдаче", "max_bet": "наибольшее повышение",
             "min_bet": "наименьшее повышение", "players_in": "в игре",
             "raise_range": "повысить до", "to_call": "уравнять",
             "trump": "козырь", "trump_doubles_combinations": "козырь удваивает комбинации",
             "name": "комбинация", "class": "вид", "concealed": "закрыто"},
    moves={"fold": "бросить карты: отказаться от сдачи и от поставленного",
           "bet": "уравнять ставку",
           "show": "уравнять и вскрыть: оставшиеся руки сравниваются",
           "raise": "повысить ставку: остальные уравнивают или бросают карты",
           "allin": "поставить все свои фишки"},
    outcomes={"fewer than two seats can pay the ante": "больше всех фишек: меньше двух "
                                                       "игроков могут поставить на кон",
              "{deals} deals played": "больше всех фишек после {deals} сдач"},
    labels={"marriage": "марьяж", "koronka-3": "коронка из трёх карт",
            "koronka-4": "коронка из четырёх карт",
            "three-of-a-kind": "3 карты одного достоинства", "four-kings": "4 короля",
            "four-of-a-kind": "4 карты одного достоинства", "bezique": "безик",
            "two-beziques": "2 безика", "same-suit": "одной масти",
            "same-rank": "одного достоинства",
            "last-standing": "остальные бросили карты", "uncontested": "без соперников",
            "showdown": "лучшая рука при вскрытии",
            "no-combination-split": "поровну: ни у кого нет комбинации",
            "QS+JD": "дама ♠ + валет ♦", "any_QJ": "любая дама + любой валет",
            "carry_over": "кон остаётся на следующую сдачу", "split": "кон делится"},
    options={"players": "Число игроков (по правилам — 4).",
             "starting_stack": "Фишки каждого игрока в начале.",
             "ante": "Сколько каждый ставит на кон перед сдачей; кому нечем — пропускает "
                     "сдачу.",
             "min_bet": "Оговорённый минимум: первая ставка и каждое повышение не меньше "
                        "(не задан — как ставка на кон).",
             "max_bet": "Предел стола: повышение не больше (не задан — без предела).",
             "multiway_showdown": "Трое и больше в игре и все уравняли: вскрываются все "
                                  "(нет — повышать или бросать, пока не останется двое).",
             "no_combination": "Ни у кого при вскрытии нет комбинации: кон остаётся на "
                               "следующую сдачу или делится.",
             "bezique_cards": "Какая пара — безик: дама ♠ с валетом ♦ или любая дама с "
                              "любым валетом.",
             "deals": "После скольких сдач игра кончается (не задано — пока хотя бы двое "
                      "могут поставить на кон).",
             "min_buy_in": "Наименьшие фишки, с которыми платформа может посадить игрока "
                           "(не задано — ставка на кон).",
             "max_buy_in": "Наибольшие фишки, с которыми платформа может посадить игрока "
                           "(не задано — начальные фишки).",
             "trump_doubles_combinations": "Комбинация только из козырей тоже считается "
                                           "вдвойне (очки за козырные карты — всегда)."},
)

RUSSIAN_FACTS = MappingProxyType({
    False: ("Кварт-Безик", "Игра семейства сека: по четыре карты из 144, торговля, и больше "
                           "всех очков при наличии комбинации берёт кон."),
    True: ("Козырной Кварт-Безик", "Кварт-Безик с открытым козырем: очки за карты козырной "
                                   "масти считаются вдвойне."),
})
"""The game's name and description in Russian, without and with a trump (the rule text's
"Кварт-Безик" and "козырной Кварт-Безик")."""


def vocabularies(variant: BaseVariant) -> tuple[Vocabulary, Mapping[str, Vocabulary]]:
    """The variant's own (English) words, named and described as it names itself and its
    options, and its translations by language (the Russian options it has)."""
    title, description = RUSSIAN_FACTS[bool(getattr(variant, "trump", False))]
    names = {spec.name for spec in variant.options}
    return (replace(VOCABULARY, title=variant.title, description=variant.description,
                    options={spec.name: spec.description for spec in variant.options}),
            MappingProxyType({"ru": replace(RUSSIAN, title=title, description=description,
                                            options={name: text for name, text
                                                     in RUSSIAN.options.items()
                                                     if name in names})}))
