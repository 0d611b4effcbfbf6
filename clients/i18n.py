"""The words of the terminal game and the command line, in English and Russian.

A plain typed module rather than gettext catalogues: the messages are keyed by their English
text (so the code reads as it prints, and a message without a translation prints in English),
the Russian ones live in :data:`RU` below, and nothing has to be compiled or packaged besides
this file. Placeholders are ``str.format`` names; ``tests/cli/test_i18n.py`` checks that each
translation has the same ones as its key. Counts go through :func:`count`, which knows the
plural rules of both languages (Russian has three forms: 1 сдача, 2 сдачи, 5 сдач).

The language is chosen once per run (:func:`set_language`): ``--lang``, else the first of
``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set (POSIX order); ``ru*`` is Russian,
anything else English. The game's own words (phases, events, melds) come from the variant's
vocabulary in ListVariants, in the same language when the server has it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

Language = Literal["en", "ru"]
LANGUAGES: tuple[Language, ...] = ("en", "ru")
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")

_state: dict[str, Language] = {"language": "en"}


def language_of(environ: Mapping[str, str], override: str | None = None) -> Language:
    """The language for ``override`` (a ``--lang`` value) or the locale variables."""
    if override:
        return "ru" if override.lower().startswith("ru") else "en"
    for name in LOCALE_VARIABLES:
        value = environ.get(name, "")
        if value:
            return "ru" if value.lower().startswith("ru") else "en"
    return "en"


def set_language(language: Language) -> None:
    _state["language"] = language


def language() -> Language:
    return _state["language"]


def t(english: str, **values: object) -> str:
    """``english`` in the chosen language, its ``{placeholders}`` filled from ``values``."""
    text = RU.get(english, english) if language() == "ru" else english
    return text.format(**values) if values else text


def plural(number: int, one: str, many: str) -> str:
    """The noun for ``number``: English one/many; Russian by its three forms (from
    :data:`RU_PLURALS`, keyed by the English singular)."""
    if language() != "ru" or one not in RU_PLURALS:
        return one if number == 1 else many
    single, few, lots = RU_PLURALS[one]
    tens, units = number % 100, number % 10
    if units == 1 and tens != 11:
        return single
    if 2 <= units <= 4 and not 12 <= tens <= 14:
        return few
    return lots


def count(number: int, one: str, many: str) -> str:
    """``"1 deal"``, ``"2 deals"``; ``"1 сдача"``, ``"2 сдачи"``, ``"5 сдач"``."""
    return f"{number} {plural(number, one, many)}"


def kind_name(kind: str) -> str:
    """A move kind as the player reads it: the built-in games' kinds in Russian, any other
    as it comes (underscores as spaces)."""
    if language() == "ru" and kind in RU_KINDS:
        return RU_KINDS[kind]
    return kind.replace("_", " ")


RU_KINDS: dict[str, str] = {
    "play": "сыграть", "declare": "объявить", "pass": "пас", "claim": "заявить победу",
    "exchange_seven": "обменять семёрку", "show_seven": "показать семёрку",
    "fold": "сбросить", "bet": "уравнять", "show": "вскрыться", "raise": "повысить",
    "allin": "ва-банк", "call": "уравнять", "check": "пропустить",
}

RU_PLURALS: dict[str, tuple[str, str, str]] = {
    "deal": ("сдача", "сдачи", "сдач"),
    "move": ("ход", "хода", "ходов"),
    "table": ("стол", "стола", "столов"),
    "bot": ("бот", "бота", "ботов"),
    "seat": ("место", "места", "мест"),
}

RU: dict[str, str] = {
    # --------------------------------------------------------------- the terminal game
    "Your move (1-{count}{passing}, h for help, q to quit): ":
        "Ваш ход (1-{count}{passing}, h — помощь, q — выход): ",
    ", {keys} to pass": ", {keys} — пас",
    "p or Enter": "p или Enter",
    "'{answer}' is not a move: type a number from 1 to {count}{passing}, h for help, or q to "
    "quit.": "«{answer}» — не ход: введите число от 1 до {count}{passing}, h — помощь, q — "
             "выход.",
    "Keys": "Клавиши",
    "a move's number then Enter plays it; {keys} passes when pass is offered; h or ? shows "
    "this; a turns passing for you on or off; q leaves the table (at any time, also while the "
    "others play).":
        "номер хода и Enter делают ход; {keys} — пас, когда он предложен; h или ? — эта "
        "справка; a включает и выключает автопас; q — уйти из-за стола (в любой момент, и "
        "пока ходят другие).",
    "A move with a range asks how much next: type any amount in it, Enter for the suggested "
    "one, or b to go back.":
        "Ход с диапазоном затем спрашивает сумму: введите любую из диапазона, Enter — "
        "предложенную, b — вернуться.",
    "The board: the header says the table, phase and whose turn it is; the seats table shows "
    "each seat's score or stack; Recent events, what just happened.":
        "Доска: в заголовке стол, фаза и чей ход; в таблице мест — очки или фишки каждого; "
        "в «Последних событиях» — что только что произошло.",
    "{kind} to how much? ({low}-{high}{steps}, Enter for {amount}, b to go back): ":
        "{kind}: сколько? ({low}-{high}{steps}, Enter — {amount}, b — назад): ",
    " in steps of {step}": " с шагом {step}",
    "to any amount from {low} to {high}": "на любую сумму от {low} до {high}",
    "'{answer}' is not an amount you may choose: type a whole number from {low} to "
    "{high}{steps}.": "«{answer}» — недопустимая сумма: введите целое число от {low} до "
                      "{high}{steps}.",
    "claim the match: it ends at once, won or lost, on your count":
        "заявить о победе: партия кончается сразу, выиграна или проиграна по вашему счёту",
    " Your score is {score}; the target is {target}.": " У вас {score} очков; цель — {target}.",
    "Claim: {what}.{facts}": "Заявка: {what}.{facts}",
    "Claim now? (y/N): ": "Заявить сейчас? (y/N): ",
    "No claim made.": "Заявки нет.",
    "The table moved on before your move arrived ({why}); here is the new position.":
        "Игра ушла вперёд, пока шёл ваш ход ({why}); вот новая позиция.",
    "You left table {table}. Its server ran inside this program, so the table is gone with "
    "it.": "Вы ушли из-за стола {table}. Его сервер работал в этой программе, и стол "
           "закрыт вместе с ней.",
    "You left table {table}; its game is over.": "Вы ушли из-за стола {table}; игра окончена.",
    "You left table {table}; the others play on without you.":
        "Вы ушли из-за стола {table}; остальные играют без вас.",
    "You left table {table}; it stays open on the server, and its turn clock will move for "
    "you when it runs out.": "Вы ушли из-за стола {table}; он остаётся на сервере, и когда "
                             "ваше время выйдет, ход сделают за вас.",
    "You left table {table}; it stays open on the server, and it waits for your seat's move "
    "(rejoin with the seat's token).": "Вы ушли из-за стола {table}; он остаётся на сервере "
                                       "и ждёт вашего хода (вернитесь с токеном места).",
    "You have no chips left: you are out of this game. The others play on; watch them (press "
    "Enter to go on watching) or type q to leave.":
        "У вас не осталось фишек: вы выбыли. Остальные играют дальше; смотрите (Enter) или "
        "введите q, чтобы уйти.",
    "The game is over.": "Игра окончена.",
    "The table is waiting for players; h for help, q to leave.":
        "Стол ждёт игроков; h — помощь, q — уйти.",
    "You are out of chips and watching; q to leave.": "У вас нет фишек, вы смотрите; q — уйти.",
    "Waiting for {movers}; h for help, q to leave.": "Ждём: {movers}; h — помощь, q — уйти.",
    "the table": "стол",
    "Passing for you when you have nothing to declare: {state} (a toggles it).":
        "Пас за вас, когда нечего объявить: {state} (a — переключить).",
    "on": "вкл.",
    "off": "выкл.",
    "Passed for you: nothing to declare.": "Пас за вас: объявить нечего.",
    "Table {table} · {title} · you are seat 0 against {bots} · seed commitment {commitment}…":
        "Стол {table} · {title} · вы на месте 0 против: {bots} · обязательство сида "
        "{commitment}…",
    "{policy} bot": "бот {policy}",
    "bots on offer: {policies} (--bot POLICY to choose)":
        "доступные боты: {policies} (выбор: --bot ПОЛИТИКА)",
    "{variant} has no bot policy {policy!r} (it has: {policies})":
        "у {variant} нет бота {policy!r} (есть: {policies})",
    "the server has no variant {variant!r} (it has: {variants})":
        "на сервере нет игры {variant!r} (есть: {variants})",
    "cannot start a local server: {why}": "не удалось запустить локальный сервер: {why}",
    "Deal result": "Итог сдачи",
    # --------------------------------------------------------------- the board (render)
    "Table {table}": "Стол {table}",
    "version {version}": "версия {version}",
    "deal {deal}": "сдача {deal}",
    "dealer: {who}": "сдаёт: {who}",
    "trumps ": "козырь ",
    "Waiting for {seats} to reveal their committed entropy.":
        "Ждём, пока {seats} раскроют обещанную энтропию.",
    "The table ended before any deal: {seats} did not reveal in time. Start a new table.":
        "Стол закрыт до первой сдачи: {seats} не раскрыли энтропию вовремя. Начните новый "
        "стол.",
    "a seat": "одно из мест",
    "Waiting for players to fill the table.": "Ждём игроков.",
    "To move: {movers}": "Ходит: {movers}",
    "{seconds}s left": "осталось {seconds} с",
    "Seat": "Место",
    "Player": "Игрок",
    "Score": "Очки",
    "Stack": "Фишки",
    "In pot": "В банке",
    "Cards held": "Карт",
    "(free)": "(свободно)",
    "Seat {seat}": "Место {seat}",
    "Seat {seat} (you)": "Место {seat} (вы)",
    "Seat {seat} ({name})": "Место {seat} ({name})",
    "Table": "Стол",
    "{title} of {who}": "{title}: {who}",
    "Pot: {pot}": "Банк: {pot}",
    "Recent events": "Последние события",
    "Your hand: ": "Ваши карты: ",
    "(empty)": "(пусто)",
    "Your legal moves:": "Ваши ходы:",
    "(from your {where})": "(из ваших: {where})",
    "[{hidden} hidden]": "[{hidden} скрыто]",
    "nobody wins": "никто не выиграл",
    "{who} wins": "выиграл(а) {who}",
    "{who} share the win": "{who} делят победу",
    " and ": " и ",
    "Game over: ": "Игра окончена: ",
    " · final: {scores}": " · итог: {scores}",
    "yes": "да",
    "no": "нет",
    "folded (revealed at the end)": "сброшено (открыто в конце)",
    # --------------------------------------------------------------- the command line
    "no port given: using {target} (the server's default port)":
        "порт не указан: {target} (порт сервера по умолчанию)",
    "cannot reach a bezique server at {server} ({details}); start one with `bezique-server` "
    "or point --server / BEZIQUE_SERVER at it":
        "нет сервера bezique по адресу {server} ({details}); запустите `bezique-server` или "
        "укажите его в --server / BEZIQUE_SERVER",
    "{server} is the HTTP port (Connect/gRPC-Web, for browsers); the gRPC port is the "
    "server's --address (default {default})":
        "{server} — это HTTP-порт (Connect/gRPC-Web, для браузеров); порт gRPC — это "
        "--address сервера (по умолчанию {default})",
    "legal moves now: {moves}": "допустимые ходы: {moves}",
    "this command needs your seat token: pass --token or set BEZIQUE_TOKEN (printed by "
    "`bezique join`)": "этой команде нужен токен места: --token или BEZIQUE_TOKEN (его "
                       "печатает `bezique join`)",
    "the game is over": "игра окончена",
    "the table is waiting for players": "стол ждёт игроков",
    "this is a spectator's view (pass --token to act for your seat)":
        "это вид зрителя (--token, чтобы ходить за своё место)",
    "it is not your turn (to move: {movers}); `bezique move --wait SECONDS` waits for it":
        "сейчас не ваш ход (ходит: {movers}); `bezique move --wait СЕКУНДЫ` дождётся его",
    "nobody": "никто",
    "no legal move {index} at version {version} (the view offers {offered})":
        "нет хода {index} в версии {version} (доступно: {offered})",
    "none: {why}": "ничего: {why}",
    "your turn did not come within {seconds} s ({why})":
        "ваш ход не наступил за {seconds} с ({why})",
    "move accepted at version {version}: ": "ход принят, версия {version}: ",
    "table: {table}": "стол: {table}",
    "seed commitment: {commitment}": "обязательство сида: {commitment}",
    "free seats: {count}": "свободных мест: {count}",
    "  (join with: bezique join {table})": "  (сесть: bezique join {table})",
    "  (joins need a join grant or the platform API key)":
        "  (сесть можно по приглашению или с API-ключом платформы)",
    "seat: {seat}": "место: {seat}",
    "token: {token}": "токен: {token}",
    "token expires: {when}": "токен истекает: {when}",
    "seed commitment {commitment} matches the revealed seed":
        "обязательство сида {commitment} совпадает с раскрытым сидом",
    "verified: {deals}, {moves} ({bots} by bots, {timeouts} on the clock)":
        "проверено: {deals}, {moves} (ботами {bots}, по таймеру {timeouts})",
    "VERIFICATION FAILED": "ПРОВЕРКА НЕ ПРОЙДЕНА",
    " for table {table}:": " для стола {table}:",
    "--bot {item}: give SEAT=POLICY, or POLICY for every bot seat":
        "--bot {item}: укажите МЕСТО=ПОЛИТИКА или ПОЛИТИКА для всех мест ботов",
    "--bot {seat}={policy}: the seat must be a number": "--bot {seat}={policy}: место — это число",
    "--bot {seat}={policy}: {variant} has no bot policy {policy!r} (it has: {policies})":
        "--bot {seat}={policy}: у {variant} нет бота {policy!r} (есть: {policies})",
    "{count} table(s)": "столов: {count}",
    "table": "стол",
    "variant": "игра",
    "phase": "фаза",
    "seats": "места",
    "free": "своб.",
    "clock": "время",
    "finished": "окончен",
    "version": "версия",
    "bot policies: {policies}": "боты: {policies}",
    "seats {seats}": "мест {seats}",
    "interrupted": "прервано",
    "(deprecated: {old}; use {new})": "(устарело: {old}; используйте {new})",
}
