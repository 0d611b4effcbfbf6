"""Bezique's words for people, in English and in Russian (the rules' own language): what a
generic client calls its phases, events, zones, details, moves, melds, outcomes and options
(sent by ListVariants, see :class:`~bezique.variants.api.Vocabulary`). The Russian names of
the game and its melds follow the rule text (shared seeds: "Безик", "марьяж", "безик",
"леве", "доставленные фигуры"); both languages have every key (the conformance kit checks)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

from bezique.variants.api import BaseVariant, Vocabulary

VOCABULARY = Vocabulary(  # the options' words are their declarations' (see vocabularies)
    language="en",
    phases={"play": "Play", "declare": "Declaring", "endgame": "Endgame (strict play)",
            "over": "Over"},
    events={"play": "plays", "trick": "takes the trick", "deal": "is dealt", "draw": "draws",
            "declare": "declares", "pass": "passes", "dealer": "deals",
            "lot": "draws for the deal", "shuffle": "shuffles", "cut": "cuts",
            "turnup": "turns up the trump card", "claim": "claims the match",
            "exchange_seven": "exchanges the seven of trumps",
            "show_seven": "shows the seven of trumps", "brisques": "counts brisques",
            "endgame": "starts the endgame", "melds_returned": "takes back the melds",
            "deal_end": "the deal ends", "match_end": "the match ends",
            "turnup_seven": "scores 10: the turned-up trump card is a seven",
            "seven_played": "scores 10 for playing the seven of trumps",
            "last_trick": "scores 10 for the last trick"},
    zones={"trick": "Current trick", "last_trick": "Last trick", "trump": "Trump card",
           "melds": "Melds", "hand": "Hand", "stock": "Stock"},
    details={"by": "by", "card": "card", "class": "class", "count": "count", "deal": "deal",
             "from": "from", "packet": "packet", "reason": "reason", "right": "right",
             "round": "round", "scores": "scores", "seats": "seats", "target": "target",
             "trump": "trumps", "turnup": "turn-up", "upgrade": "upgrade",
             "winners": "winners", "bezique": "bezique cards", "dealer": "dealer",
             "declaration_pending": "declaration pending", "declaring": "declaring",
             "last_trick_winner": "last trick won by", "leader": "leads",
             "melds": "melds", "seven_exchange_open": "seven of trumps may be exchanged",
             "stock_exhausted": "stock exhausted", "deals": "deals played",
             "trick_seats": "played to the trick by",
             "last_trick_seats": "played to the last trick by", "stock_size": "cards in stock",
             "trick": "trick"},
    moves={"play": "play this card to the trick",
           "declare": "meld these cards for points (they stay on the table, playable)",
           "pass": "declare nothing this time",
           "exchange_seven": "swap the seven of trumps for the turned-up trump card",
           "show_seven": "show the seven of trumps for its points",
           "claim": "claim the match: your score plus the brisques you have won this deal is "
                    "counted; at or above the target you win at once, below it you LOSE the "
                    "match at once"},
    outcomes={"target": "won on points: reached the target",
              "target_last_trick": "won on points: several reached the target, the last "
                                   "trick decides",
              "target_highest": "won on points: several reached the target, the highest "
                                "score wins",
              "triple_bezique": "won at once with a triple bezique",
              "claim": "won by a right claim",
              "wrong_claim": "a wrong claim lost the match"},
    labels={"common_marriage": "marriage", "royal_marriage": "royal marriage",
            "sequence": "sequence", "bezique": "bezique", "double_bezique": "double bezique",
            "triple_bezique": "triple bezique", "four_aces": "four aces",
            "four_kings": "four kings", "four_queens": "four queens",
            "four_jacks": "four jacks", "marriages": "marriages and sequence",
            "beziques": "beziques", "fours": "fours", "hand": "the hand",
            "table": "the table", "fixed": "fixed", "counterclockwise": "counterclockwise",
            "clockwise": "clockwise", "2-2-2-2": "in pairs (2-2-2-2)",
            "3-2-3": "3-2-3", "final": "the final trick",
            "last_of_stock": "the last trick while the stock lasts",
            "QS+JD": "Q♠ + J♦", "trump_dependent": "Q♣ + J♥ when ♠ or ♦ are trumps",
            "highest": "the highest score wins", "another_deal": "another deal",
            "always": "after every trick won", "when_possible": "only when able to declare"},
)

RUSSIAN = Vocabulary(
    language="ru",
    phases={"play": "Игра", "declare": "Объявление", "endgame": "Последние взятки",
            "over": "Конец"},
    events={"play": "ходит", "trick": "берёт взятку", "deal": "получает карты",
            "draw": "берёт карту из колоды", "declare": "объявляет", "pass": "пасует",
            "dealer": "сдаёт", "lot": "тянет жребий на сдачу", "shuffle": "тасует",
            "cut": "снимает", "turnup": "открывает козырь", "claim": "объявляет победу",
            "exchange_seven": "меняет козырную семёрку на открытый козырь",
            "show_seven": "показывает козырную семёрку",
            "brisques": "считает доставленные фигуры",
            "endgame": "колода кончилась: последние взятки",
            "melds_returned": "забирает объявленные карты в руку",
            "deal_end": "сдача окончена", "match_end": "партия окончена",
            "turnup_seven": "получает 10: открытый козырь — семёрка",
            "seven_played": "получает 10 за ход козырной семёркой",
            "last_trick": "получает 10 за последнее леве"},
    zones={"trick": "Взятка", "last_trick": "Последняя взятка", "trump": "Козырь",
           "melds": "Объявленные карты", "hand": "Рука", "stock": "Колода"},
    details={"by": "как", "card": "карта", "class": "класс", "count": "счёт", "deal": "сдача",
             "from": "откуда", "packet": "пачка", "reason": "причина", "right": "верно",
             "round": "круг", "scores": "очки", "seats": "игроки", "target": "цель",
             "trump": "козырь", "turnup": "открытый козырь", "upgrade": "достройка",
             "winners": "победители", "bezique": "карты безика", "dealer": "сдатчик",
             "declaration_pending": "ждёт объявления", "declaring": "объявляет",
             "last_trick_winner": "последнюю взятку взял", "leader": "ходит первым",
             "melds": "объявления", "seven_exchange_open": "козырную семёрку можно обменять",
             "stock_exhausted": "колода кончилась", "deals": "сыграно сдач",
             "trick_seats": "во взятку сыграли",
             "last_trick_seats": "в последнюю взятку сыграли",
             "stock_size": "карт в колоде", "trick": "взятка"},
    moves={"play": "сыграть эту карту во взятку",
           "declare": "объявить эти карты за очки (они остаются на столе, ими можно ходить)",
           "pass": "ничего не объявлять",
           "exchange_seven": "обменять козырную семёрку на открытый козырь",
           "show_seven": "показать козырную семёрку за её очки",
           "claim": "объявить победу: считаются ваши очки и доставленные фигуры этой сдачи; "
                    "набрали цель — вы выиграли, не набрали — вы ПРОИГРАЛИ партию"},
    outcomes={"target": "победа по очкам: набрана цель",
              "target_last_trick": "победа по очкам: цель набрали несколько, решило "
                                   "последнее леве",
              "target_highest": "победа по очкам: цель набрали несколько, больше очков у "
                                "победителя",
              "triple_bezique": "победа сразу: тройной безик",
              "claim": "победа: верно объявленная победа",
              "wrong_claim": "неверно объявленная победа проиграла партию"},
    labels={"common_marriage": "марьяж", "royal_marriage": "козырный марьяж",
            "sequence": "секвенция", "bezique": "безик", "double_bezique": "двойной безик",
            "triple_bezique": "тройной безик", "four_aces": "четыре туза",
            "four_kings": "четыре короля", "four_queens": "четыре дамы",
            "four_jacks": "четыре валета", "marriages": "марьяжи и секвенция",
            "beziques": "безики", "fours": "четвёрки", "hand": "с руки",
            "table": "со стола", "fixed": "задан", "counterclockwise": "против часовой стрелки",
            "clockwise": "по часовой стрелке", "2-2-2-2": "попарно (2-2-2-2)",
            "3-2-3": "3-2-3", "final": "последняя взятка",
            "last_of_stock": "последняя взятка, пока есть колода",
            "QS+JD": "дама ♠ + валет ♦",
            "trump_dependent": "дама ♣ + валет ♥, когда козыри ♠ или ♦",
            "highest": "побеждает больше очков", "another_deal": "ещё одна сдача",
            "always": "после каждой взятой взятки", "when_possible": "только когда есть что "
                                                                    "объявить"},
    options={"target": "Очки, которые выигрывают партию, набранные к концу сдачи.",
             "direction": "Куда идёт ход: направо (против часовой стрелки) или налево (по "
                          "часовой). Вдвоём не важно.",
             "deal_packets": "Какими пачками сдаются 8 карт.",
             "last_trick": "Какая взятка приносит 10 очков.",
             "bezique_cards": "Какая пара — безик.",
             "seven_is_declaration": "Показ или обмен козырной семёрки — единственное "
                                     "объявление за взятку.",
             "seven_scores_when_played": "Ещё не засчитанная козырная семёрка приносит 10, "
                                         "когда ею ходят, пока есть колода.",
             "show_stock_size": "Показывать, сколько карт осталось в колоде.",
             "claims": "Можно объявить победу, когда колода кончилась (неверно — проигрыш).",
             "target_tie": "Цель набрали несколько, и никто из них не взял последнюю взятку.",
             "declare_prompt": "Кого спрашивать об объявлении после взятки: каждого взявшего "
                               "или только того, кому есть что объявить."},
    description=("Безик несколькими колодами: объявления на столе, козырная семёрка, строгая "
                 "игра, когда колода кончилась, доставленные фигуры в конце сдачи."),
)

RUSSIAN_TITLES = MappingProxyType({2: "Безик вдвоём (2 колоды)", 3: "Безик втроём (3 колоды)"})
"""The game's name in Russian for 2 and 3 players (the rule text's "Игра вдвоём",
"Игра втроём")."""


def vocabularies(variant: BaseVariant, seats: int
                 ) -> tuple[Vocabulary, Mapping[str, Vocabulary]]:
    """The ``seats``-player variant's own (English) words, named and described as it names
    itself and its options, and its translations by language."""
    described = {spec.name: spec.description for spec in variant.options}
    return (replace(VOCABULARY, title=variant.title, description=variant.description,
                    options=described),
            MappingProxyType({"ru": replace(RUSSIAN, title=RUSSIAN_TITLES[seats])}))
