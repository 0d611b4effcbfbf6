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


def entry_kind_name(kind: str) -> str:
    """A log entry's kind (``EntryKind``) as the player reads it in a history or a watch line."""
    if language() == "ru" and kind in RU_ENTRY_KINDS:
        return RU_ENTRY_KINDS[kind]
    return kind.replace("_", " ")


RU_ENTRY_KINDS: dict[str, str] = {
    "created": "создан", "joined": "сел", "left": "ушёл", "revealed": "раскрыл",
    "started": "начало", "move": "ход", "bot_move": "ход бота", "timeout": "время",
    "ended": "конец", "aborted": "закрыт", "token_reissued": "новый токен",
}


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
    # --------------------------------------------------------------- history --replay
    "Table {table}: {title}": "Стол {table}: {title}",
    "The game is over and its seed revealed, so every deal can be recomputed: the history "
    "shows every hand, folded ones included.":
        "Игра окончена и её зерно раскрыто, так что каждую сдачу можно пересчитать: в истории "
        "видны все руки, и сброшенные тоже.",
    "{who} sits down": "{who} садится за стол",
    "{who} leaves": "{who} уходит из-за стола",
    "{who} gets a new seat token": "{who} получает новый токен места",
    "The game starts": "Игра начинается",
    "{who}'s turn clock ran out": "{who}: время на ход вышло",
    "(the game is still going)": "(игра ещё идёт)",
    "draws: ": "берут из колоды: ",
    "(the turn-up)": "(открытый козырь)",
    "── Deal {deal} ── dealer: {who}": "── Сдача {deal} ── сдаёт: {who}",
    "Deal {deal} ends": "Сдача {deal} окончена",
    "The game ends": "Игра окончена",
    "Trick {n}: ": "Взятка {n}: ",
    "Round {n}: ": "Круг {n}: ",
    "winners: {who}": "победители: {who}",
    "note: {note}": "примечание: {note}",
    "the table waits for seat(s) {seats} to reveal their entropy (each player's view, move or "
    "watch with --proof, or BEZIQUE_PROOF set, reveals it)":
        "стол ждёт, пока места {seats} раскроют своё случайное число (его раскрывают view, "
        "move или watch игрока с --proof или с заданной BEZIQUE_PROOF)",
    "WARNING: TEST SETTINGS ({settings}): this table's deals were chosen by its creator, not "
    "drawn": "ВНИМАНИЕ: ТЕСТОВЫЕ НАСТРОЙКИ ({settings}): сдачи этого стола выбрал его создатель, "
             "а не жребий",
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
    "You left table {table}; it stays open on the server, and it waits for your seat's "
    "move.": "Вы ушли из-за стола {table}; он остаётся на сервере и ждёт вашего хода.",
    "To go on with `bezique view {table}` and `bezique move`, keep your seat:":
        "Чтобы продолжить с `bezique view {table}` и `bezique move`, сохраните своё место:",
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
    "the server at {server} answers, but its table store is unavailable for a moment (a "
    "database failover, or the database down): try again shortly":
        "сервер {server} отвечает, но его хранилище столов ненадолго недоступно (переключение "
        "базы данных или база не работает): повторите чуть позже",
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
    '--proof is SEAT:ENTROPY_HEX:COMMITMENT[:SEEN], as `bezique join` (or the command that '
    'revealed) printed it':
        '--proof — это МЕСТО:ЭНТРОПИЯ_HEX:ОБЯЗАТЕЛЬСТВО[:ВИДЕННОЕ], как напечатал `bezique '
        'join` (или команда, раскрывшая энтропию)',
    'revealed your entropy; keep this proof for `bezique verify`:':
        'ваша энтропия раскрыта; сохраните это доказательство для `bezique verify`:',
    '{what} {item!r} is not of the form NAME=VALUE':
        '{what} {item!r} — не в форме ИМЯ=ЗНАЧЕНИЕ',
    'hint: the --token given holds no seat at this table; `bezique join` prints the token of '
    'the seat it takes':
        'подсказка: у токена из --token нет места за этим столом; `bezique join` печатает '
        'токен занятого места',
    'this table':
        'этого стола',
    'hint: the token comes from BEZIQUE_TOKEN, which may be left over from another table: pass '
    "--token with your seat's token for {table}, or `unset BEZIQUE_TOKEN` to look on as a "
    'spectator':
        'подсказка: токен взят из BEZIQUE_TOKEN, возможно, от другого стола: передайте --token '
        'с токеном вашего места для {table} или выполните `unset BEZIQUE_TOKEN`, чтобы '
        'смотреть как зритель',
    'your entropy stays secret until every seat is taken; then `bezique view`, `move`, `watch` '
    'or `play` with BEZIQUE_PROOF set reveal it (keep BEZIQUE_PROOF private until then)':
        'ваша энтропия остаётся тайной, пока не заняты все места; затем её раскроют `bezique '
        'view`, `move`, `watch` или `play` с заданным BEZIQUE_PROOF (до тех пор держите '
        'BEZIQUE_PROOF в секрете)',
    'seat ':
        'место ',
    'seats ':
        'места ',
    'card {card!r} is not in your hand or your legal moves':
        'карты {card!r} нет ни в руке, ни в ваших ходах',
    'give either the number of a legal move or --kind (with --card, --amount, --label)':
        'укажите либо номер допустимого хода, либо --kind (с --card, --amount, --label)',
    'verified: the table ended before any deal ({why}): seats {seats} did not reveal the '
    'entropy they committed to; every reveal that came matches its commitment':
        'проверено: стол закрыт до первой сдачи ({why}): места {seats} не раскрыли обещанную '
        'энтропию; каждое пришедшее раскрытие совпадает с обязательством',
    "aborted by the operator: the settlement is the variant's, recomputed":
        'прервано оператором: расчёт — по правилам игры, пересчитан',
    'your seat {seat}: the commitment you were shown and the entropy you sent are the ones the '
    'deals came from':
        'ваше место {seat}: сдачи получены из показанного вам обязательства и посланной вами '
        'энтропии',
    "; every seat's contribution is the one you saw before you revealed":
        '; вклад каждого места — тот, что вы видели до своего раскрытия',
    'fair against the operator: {seats} contributed entropy by commit-reveal (each fixed '
    'before any was revealed; every reveal matches its commitment)':
        'честно и против оператора: {seats} — энтропия внесена через обязательство и '
        'раскрытие (каждая зафиксирована до любого раскрытия; каждое раскрытие совпадает с '
        'обязательством)',
    'also ':
        'также ',
    'fair against the operator only if one of these is honest and joined after every other seat: ':
        'честно против оператора, только если один из них честен и сел последним: ',
    '{seats} contributed entropy in the clear (public from their join)':
        '{seats} — энтропия внесена открыто (видна с момента посадки)',
    'not checkable against the operator: no seat contributed entropy, so the operator alone '
    'chose the seed':
        'против оператора не проверить: ни одно место не внесло энтропию, сид выбрал один оператор',
    "(deprecated: {old}; use {new})": "(устарело: {old}; используйте {new})",
    # --------------------------------------------------------------- the command line's help
    "positional arguments": "позиционные аргументы",
    "options": "параметры",
    "connection": "соединение",
    "Play and inspect card tables on a bezique server.":
        "Игра и просмотр карточных столов на сервере bezique.",
    "show this help message and exit":
        "показать эту справку и выйти",
    "show program's version number and exit":
        "показать версию программы и выйти",
    "the server (env BEZIQUE_SERVER, the one the server listens on too; BEZIQUE_ADDRESS, "
    "deprecated, still read; default 127.0.0.1:50051; no port: 50051; for play: none given "
    "runs a server in-process)":
        "сервер (переменная BEZIQUE_SERVER, её читает и сам сервер; устаревшая BEZIQUE_ADDRESS "
        "тоже читается; по умолчанию 127.0.0.1:50051; без порта — 50051; для play: если не "
        "задан, сервер запускается в этой программе)",
    "the language of what is printed (default: from LC_ALL, LC_MESSAGES or LANG; ru* is "
    "Russian)":
        "язык вывода (по умолчанию из LC_ALL, LC_MESSAGES или LANG; ru* — русский)",
    "your seat token for seat calls (env BEZIQUE_TOKEN)":
        "токен вашего места для действий за место (переменная BEZIQUE_TOKEN)",
    "the platform API key, if the server wants one (env BEZIQUE_API_KEY)":
        "API-ключ платформы, если сервер его требует (переменная BEZIQUE_API_KEY)",
    "use TLS with the system's root certificates":
        "TLS с корневыми сертификатами системы",
    "CA bundle to check the server's certificate (implies TLS)":
        "сертификаты CA для проверки сервера (включает TLS)",
    "client certificate chain for mutual TLS":
        "цепочка сертификатов клиента для взаимного TLS",
    "client private key for mutual TLS":
        "закрытый ключ клиента для взаимного TLS",
    "list the installed variants, their options and bots":
        "список установленных игр, их настроек и ботов",
    "list the tables that are not finished":
        "список незаконченных столов",
    "create a table (prints its id and seed commitment)":
        "создать стол (печатает его id и обязательство сида)",
    "play again: a new table like a finished one (its variant, options, bots and clock), the "
    "same for every player who asks":
        "сыграть ещё: новый стол как законченный (та же игра, настройки, боты и часы), один и "
        "тот же для каждого игрока, кто попросит",
    "another player asked first: this is the same rematch":
        "другой игрок попросил раньше: это тот же новый стол",
    "take a seat (prints the seat token)":
        "занять место (печатает токен места)",
    "platform: a new token for a seat, revoking the old one":
        "платформа: новый токен места, старый отзывается",
    "platform: end a table now (reason aborted, stakes back)":
        "платформа: закрыть стол сейчас (причина aborted, ставки возвращаются)",
    "platform: the results feed, every finished table from a cursor":
        "платформа: лента результатов, все законченные столы от курсора",
    "show a table as your seat (or a spectator) sees it":
        "показать стол так, как его видит ваше место (или зритель)",
    "make a move: the number of a legal move, or --kind ...":
        "сделать ход: номер допустимого хода или --kind ...",
    "print every update of a table until the game ends":
        "печатать каждое изменение стола до конца игры",
    "print a table's log (--replay: trick by trick)":
        "напечатать журнал стола (--replay: по взяткам)",
    "check a finished game's shuffles against its seed commitment":
        "проверить тасовки законченной игры по обязательству сида",
    "play a whole game against bots in this terminal":
        "сыграть целую партию с ботами в этом терминале",
    "write a variant plugin package to start from (no server needed)":
        "создать заготовку пакета-плагина игры (сервер не нужен)",
    "only tables of this variant":
        "только столы этой игры",
    "only tables with a free seat":
        "только столы со свободным местом",
    "an option of the variant (see `bezique variants`)":
        "настройка игры (см. `bezique variants`)",
    "seconds a seat has to move (0: no clock)":
        "секунд на ход (0 — без часов)",
    "seat SEAT is played by the server's bot POLICY (any policy `bezique variants` lists)":
        "за место МЕСТО играет бот сервера ПОЛИТИКА (любой из списка `bezique variants`)",
    "test mode: fix the secret seed":
        "тестовый режим: задать секретный сид",
    "test mode: the first deal's shoe, top card first":
        "тестовый режим: колода первой сдачи, сверху вниз",
    "test mode: fix the first dealer":
        "тестовый режим: задать первого сдатчика",
    "anyone may join, without a join grant or the API key (a server with --grant-public-key "
    "otherwise takes only those; never a table with buy-ins)":
        "сесть может любой, без приглашения и API-ключа (иначе сервер с --grant-public-key "
        "пускает только с ними; не для столов с бай-инами)",
    "the seat to take (default: the first free)":
        "какое место занять (по умолчанию первое свободное)",
    "your display name":
        "ваше имя за столом",
    "platform: the player the seat is bound to (needs --api-key)":
        "платформа: игрок, за которым закреплено место (нужен --api-key)",
    "platform: the seat's starting stack, chips (betting variants; needs --api-key)":
        "платформа: начальные фишки места (игры со ставками; нужен --api-key)",
    "a join grant the platform signed (env BEZIQUE_GRANT), in place of the API key":
        "приглашение, подписанное платформой (переменная BEZIQUE_GRANT), вместо API-ключа",
    "the seat, from 0":
        "место, с 0",
    "why, for the record (kept in the log; up to 200 characters)":
        "причина для журнала (хранится в логе; до 200 символов)",
    "start after the result with cursor N (default 0: the first)":
        "начать после результата с курсором N (по умолчанию 0 — с первого)",
    "keep printing tables as they end, until interrupted":
        "печатать столы по мере окончания, пока не прервут",
    "without --follow: stop once no result came for this long":
        "без --follow: остановиться, если столько секунд не было результатов",
    "one TableResult a line, as protobuf JSON":
        "по одному TableResult в строке, в JSON protobuf",
    "what `bezique join` printed for your seat (env BEZIQUE_PROOF): its secret entropy is "
    "revealed when the table asks (every seat taken)":
        "то, что `bezique join` напечатал для вашего места (переменная BEZIQUE_PROOF): его "
        "тайная энтропия раскрывается, когда стол попросит (все места заняты)",
    "the number of a legal move as `bezique view` lists it":
        "номер допустимого хода из списка `bezique view`",
    "the move's kind (play, declare, pass, raise, ...)":
        "вид хода (play, declare, pass, raise, ...)",
    "a card of the move, by code (AS, TH) or id":
        "карта хода, кодом (AS, TH) или id",
    "chips, for betting moves: with INDEX, any amount in the range the move offers (a "
    "quart-bezique raise to any level in range)":
        "фишки для ставок: с номером хода — любая сумма из предложенного диапазона (повышение "
        "в кварт-безике до любого уровня в нём)",
    "a named choice, e.g. royal_marriage":
        "именованный выбор, например royal_marriage",
    "the version the move is for (default: the current one)":
        "версия, для которой ход (по умолчанию текущая)",
    "wait up to SECONDS for your turn (a bot may still be thinking), then move; the number is "
    "of the moves offered then":
        "ждать своего хода до СЕКУНД (бот может ещё думать), затем ходить; номер — из ходов, "
        "предложенных тогда",
    "start after version N (default 0)":
        "начать после версии N (по умолчанию 0)",
    "tell the game deal by deal, trick by trick":
        "рассказать игру по сдачам и взяткам",
    "what `bezique join` printed for your seat (env BEZIQUE_PROOF): the history must hold the "
    "entropy you sent and the commitment you were shown":
        "то, что `bezique join` напечатал для вашего места (переменная BEZIQUE_PROOF): в "
        "истории должны быть ваша энтропия и показанное вам обязательство",
    "check a table created with test settings (a fixed seed, a stacked shoe or dealer) instead "
    "of failing":
        "проверить стол с тестовыми настройками (заданный сид, колода или сдатчик), а не "
        "отказать",
    "the bots' policy, for every bot seat or (as with create) one seat; any policy `bezique "
    "variants` lists (default: the one the web table's Play now plays: search, where the "
    "variant has it)":
        "политика ботов для всех мест ботов или (как в create) для одного места; любая из "
        "списка `bezique variants` (по умолчанию та, что играет «Играть сейчас» веб-стола: "
        "search, если она есть у варианта)",
    "the same as --bot POLICY":
        "то же, что --bot ПОЛИТИКА",
    "pass for you when pass is your only declaration (Bezique: a trick won with nothing to "
    "declare); the key a toggles it in the game":
        "пасовать за вас, когда пас — единственное объявление (безик: взятка взята, объявить "
        "нечего); клавиша a включает и выключает это в игре",
    "seconds a bot waits before it moves (in-process server only)":
        "сколько секунд бот ждёт перед ходом (только встроенный сервер)",
    "the variant id, e.g. spades (the package: bezique-spades)":
        "id игры, например spades (пакет: bezique-spades)",
    "where to write it (default: ./bezique-NAME; must be empty)":
        "куда записать (по умолчанию ./bezique-ИМЯ; папка должна быть пустой)",
}
