"""Discovery: a plugin manager built per registry (no module-global state), plugins loaded
from the ``bezique`` entry points, hooks checked, variants and bot policies collected.

An installed plugin cannot take the server down: one that fails to import, implements a hook
that does not exist, raises in a hook, returns something that is not a variant, repeats a
variant id within its own answer or fails the quick start-up check (:func:`quick_check`) is
left out and recorded in :attr:`Registry.excluded` (the server logs one line for each); the
others serve. Plugins handed in directly (``plugins=``, tests and embedding code) are the
caller's own code and stay strict: their mistakes raise.

A variant id, or a bot policy name of one variant, claimed by two plugins is never settled by
the order pluggy calls them in (``tryfirst`` would let any installed plugin displace a built-in
game or bot): it is a :class:`ClaimConflict`, unless exactly one claimant's distribution is
among those the operator prefers; the other claims are then dropped and recorded in
:attr:`Registry.displaced`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any, TypeVar

import pluggy

from bezique.variants import hookspecs
from bezique.variants.api import BotPolicy, Event, RandomPolicy, Variant, VariantError
from bezique.variants.chance import SeededChance
from bezique.variants.host import resolve_options

T = TypeVar("T")


class UnknownVariantError(VariantError):
    def __init__(self, variant_id: str, known: Iterable[str]) -> None:
        super().__init__(f"unknown variant {variant_id!r} (known: {', '.join(sorted(known))})")
        self.variant_id = variant_id


class PluginError(Exception):
    """Why an installed plugin was left out (one line)."""


class ClaimConflict(ValueError):
    """Two plugins claim one name (a variant id, or a bot policy name of a variant) and no
    preference settles it: the registry cannot choose without letting one displace the other."""

    def __init__(self, kind: str, name: str, first: Origin, second: Origin) -> None:
        super().__init__(f"the {kind} {name!r} is claimed by both {_named(first)} and "
                         f"{_named(second)}")
        self.kind = kind
        self.name = name
        self.claimants = (first, second)


@dataclass(frozen=True)
class Origin:
    """The distribution a plugin (and so its variants) came from."""

    name: str
    version: str

    def __str__(self) -> str:
        return f"{self.name} {self.version}"


LOCAL = Origin("(in-process)", "")
"""The origin of a plugin handed to the registry directly rather than installed."""


@dataclass(frozen=True)
class Displaced:
    """A claim dropped because the operator prefers another distribution's claim to the name."""

    kind: str
    """``variant id`` or ``bot policy``."""
    name: str
    kept: Origin
    dropped: Origin
    variants: tuple[str, ...] = ()
    """For a bot policy: the variants whose policy of that name was dropped."""


@dataclass(frozen=True)
class Exclusion:
    """An installed plugin that was left out, and why."""

    origin: Origin
    entry_point: str
    error: str


def _named(origin: Origin) -> str:
    """An origin in a message: a plugin in no installed distribution is the caller's own."""
    return str(origin).strip() or LOCAL.name


def normalize(name: str) -> str:
    """A distribution name as packaging compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, PluginError):
        return str(exc)
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def origin_of_module(module: str) -> Origin:
    """The installed distribution that provides the top-level package of ``module`` (empty
    name and version when none does, e.g. a module defined in a test). An editable install
    by hatchling lists no package files, so a distribution whose ``bezique`` entry point
    lives in that package names it too. It reads the installed metadata: a registry asks
    once per module, when it is built (:attr:`Registry.origins`). The plugins' entry points
    are read first: a plugin's module is found there in about 1 ms, where the map of every
    installed package takes about 25 ms (a registry per server start, per test)."""
    top = module.split(".")[0]
    names = [entry_point.dist.name
             for entry_point in metadata.entry_points(group=hookspecs.PROJECT)
             if entry_point.dist is not None and entry_point.value.split(".")[0] == top
             ] or metadata.packages_distributions().get(top, [])
    if not names:
        return Origin("", "")
    try:
        return Origin(names[0], metadata.version(names[0]))
    except metadata.PackageNotFoundError:
        return Origin(names[0], "")


def _origin_of(entry_point: metadata.EntryPoint) -> Origin:
    dist = entry_point.dist
    if dist is None:
        return Origin(entry_point.value.split(".")[0], "unknown")
    return Origin(dist.name, dist.version)


def make_plugin_manager(
    *, entry_points: bool = True, plugins: Iterable[object] = ()
) -> pluggy.PluginManager:
    """A fresh plugin manager with the hookspecs, the installed plugins and ``plugins``.

    ``check_pending()`` makes a misspelled hook implementation of ``plugins`` an error; an
    installed plugin with one is left out (see :class:`PluginLoader`).
    """
    return PluginLoader(entry_points=entry_points, plugins=plugins).manager


class PluginLoader:
    """Loads plugins into a fresh plugin manager, one at a time, isolating installed ones."""

    def __init__(self, *, entry_points: bool = True, plugins: Iterable[object] = (),
                 allow: Iterable[str] = (), deny: Iterable[str] = ()) -> None:
        self.manager = pluggy.PluginManager(hookspecs.PROJECT)
        self.manager.add_hookspecs(hookspecs)
        self.origins: dict[int, Origin] = {}
        """Each registered installed plugin's origin, by ``id(plugin)``."""
        self.excluded: list[Exclusion] = []
        self.not_installed: list[str] = []
        """Names in the allow-list that no installed distribution's entry point matches."""
        self.installed: set[str] | None = None
        """The normalized names of the distributions with an entry point (None: not read)."""
        for plugin in plugins:
            self.manager.register(plugin)
        self.manager.check_pending()
        if entry_points:
            self._load_installed({normalize(n) for n in allow}, {normalize(n) for n in deny})

    def origin(self, plugin: object) -> Origin:
        return self.origins.get(id(plugin), LOCAL)

    def exclude(self, plugin: object | None, origin: Origin, name: str, error: str) -> None:
        if plugin is not None and self.manager.is_registered(plugin):
            self.manager.unregister(plugin)
        if plugin is not None:
            self.origins.pop(id(plugin), None)
        self.excluded.append(Exclusion(origin, name, error))

    def _load_installed(self, allow: set[str], deny: set[str]) -> None:
        seen: set[str] = set()
        found: set[str] = set()
        for entry_point in metadata.entry_points(group=hookspecs.PROJECT):
            origin = _origin_of(entry_point)
            key = f"{normalize(origin.name)}:{entry_point.name}"
            if key in seen:
                continue  # the same distribution found twice on the path
            seen.add(key)
            found.add(normalize(origin.name))
            if (allow and normalize(origin.name) not in allow) or normalize(origin.name) in deny:
                continue
            try:
                plugin = entry_point.load()
            except (Exception, SystemExit) as exc:  # a module that calls exit() on import too
                self.exclude(None, origin, entry_point.name,
                             f"import of {entry_point.value} failed: {_one_line(exc)}")
                continue
            name = entry_point.name  # another distribution may use the same name
            if self.manager.has_plugin(name):
                name = key
            try:
                self.manager.register(plugin, name=name)
            except Exception as exc:  # pluggy.PluginValidationError above all
                self.exclude(None, origin, entry_point.name, _one_line(exc))
                continue
            self.origins[id(plugin)] = origin
            unknown = self._unknown_hooks(plugin)
            if unknown:
                self.exclude(plugin, origin, entry_point.name,
                             f"unknown hook {', '.join(unknown)} (the hooks are "
                             f"{', '.join(self._known_hooks())})")
        self.not_installed = sorted(allow - found)
        self.installed = found

    def _known_hooks(self) -> list[str]:
        return sorted(name for name in dir(hookspecs) if name.startswith(hookspecs.PROJECT + "_"))

    def _unknown_hooks(self, plugin: object) -> list[str]:
        """The hooks ``plugin`` implements that no hookspec declares (what ``check_pending``
        refuses), asked of this one plugin."""
        callers = self.manager.get_hookcallers(plugin) or []
        return sorted(caller.name for caller in callers if not caller.has_spec() and any(
            impl.plugin is plugin and not impl.optionalhook for impl in caller.get_hookimpls()))

    def call(self, hook: str, kwargs: Mapping[str, Any],
             on_error: Callable[[object, BaseException], None]) -> list[tuple[object, Any]]:
        """Each plugin's answer to ``hook``, one plugin at a time: a plugin that raises is
        handed to ``on_error`` and the others still answer."""
        answers = []
        for impl in _impls(self.manager, hook):
            try:
                answers.append((impl.plugin, _invoke(impl, kwargs)))
            except Exception as exc:
                on_error(impl.plugin, exc)
        return answers


def _impls(manager: pluggy.PluginManager, hook: str) -> list[pluggy.HookImpl]:
    """The plain implementations of ``hook`` in registration order (wrappers, which only
    make sense around pluggy's own call loop, are not used by these hooks)."""
    caller = getattr(manager.hook, hook)
    return [impl for impl in reversed(caller.get_hookimpls())
            if not (impl.hookwrapper or impl.wrapper)]


def _invoke(impl: pluggy.HookImpl, kwargs: Mapping[str, Any]) -> Any:
    """Call one implementation with the arguments it names (a hook may take fewer than its
    spec, as pluggy allows)."""
    return impl.function(*[kwargs[name] for name in impl.argnames])


def quick_check(variant: Variant, moves: int = 64) -> None:
    """The start-up check of an installed variant: its facts are coherent, a game starts with
    the default options, and a few random moves apply, each from the legal moves, with a view
    for the mover and the public. Milliseconds; the full kit is
    :mod:`bezique.variants.conformance`."""
    from bezique.variants.conformance import ConformanceError, check_facts

    check_facts(variant)
    options = resolve_options(variant.options, {})
    game, _ = variant.start(options, SeededChance(bytes(32)))
    rng = random.Random(0)
    policy = RandomPolicy()
    game.view(None)
    for _ in range(moves):
        if game.outcome() is not None:
            return
        if not game.to_move:
            raise ConformanceError(f"{variant.id}: no seat to move, yet no outcome")
        seat = game.to_move[0]
        legal = game.legal_moves(seat)
        if not legal:
            raise ConformanceError(f"{variant.id}: seat {seat} is to move with no legal move")
        game.apply(seat, policy.choose(game.view(seat), legal, rng))
        game.view(None)


class Registry:
    """The variants and bot policies of one plugin manager.

    Both are asked of every plugin once, here: an installed plugin that raises in either hook
    is left out now, at start-up, rather than failing a ``ListVariants`` later. ``prefer``:
    distributions whose claim to a name wins over another plugin's (see :class:`ClaimConflict`).
    """

    def __init__(self, manager: pluggy.PluginManager | PluginLoader,
                 prefer: Iterable[str] = ()) -> None:
        prefer = tuple(prefer)
        loader = manager if isinstance(manager, PluginLoader) else None
        self.manager = manager.manager if isinstance(manager, PluginLoader) else manager
        self._loader = loader
        self._prefer = {normalize(name) for name in prefer}
        self.excluded: list[Exclusion] = list(loader.excluded) if loader else []
        self.not_installed: list[str] = list(loader.not_installed) if loader else []
        installed = loader.installed if loader else None
        self.not_installed_preferred: list[str] = sorted(
            {name for name in prefer if normalize(name) not in installed}
            if installed is not None else ())
        """Names ``prefer`` gives that no installed distribution's entry point matches (a
        typo, or a plugin not installed here): they settle nothing."""
        self._policies: dict[str, dict[str, BotPolicy]] = {}
        self._displaced: dict[tuple[str, str, Origin, Origin], list[str]] = {}
        self._module_origins: dict[str, Origin] = {}
        while True:  # once more each time a plugin is left out (its variants go with it)
            left_out = len(self.excluded)
            self._displaced.clear()
            self._collect_variants()
            for variant_id in self._variants:
                self.bot_policies(variant_id)
            if len(self.excluded) == left_out:
                break
            self._policies.clear()

    @property
    def displaced(self) -> list[Displaced]:
        """The claims dropped because the operator prefers another distribution's claim."""
        return [Displaced(kind, name, kept, dropped, tuple(variants))
                for (kind, name, kept, dropped), variants in self._displaced.items()]

    def _owner(self, plugin: object, thing: object) -> Origin:
        """The distribution that claims ``thing``: the plugin's, or for a plugin handed in
        directly, that of the module defining ``thing`` (if installed)."""
        origin = self._loader.origin(plugin) if self._loader else LOCAL
        return origin if origin is not LOCAL else self._module_origin(type(thing).__module__)

    def _module_origin(self, module: str) -> Origin:
        """:func:`origin_of_module`, read once per module by this registry (it reads the
        installed metadata; several variants and policies may share a module)."""
        found = self._module_origins.get(module)
        if found is None:
            found = self._module_origins[module] = origin_of_module(module)
        return found

    def _settle(self, kind: str, name: str, claims: Sequence[tuple[Origin, T]],
                variant_id: str = "") -> T:
        """The one claim to ``name``: the only one, or the only preferred one (the others
        are recorded as displaced); else :class:`ClaimConflict`."""
        if len(claims) == 1:
            return claims[0][1]
        preferred = [claim for claim in claims if normalize(claim[0].name) in self._prefer]
        if len(preferred) != 1:
            first, second = (preferred if len(preferred) > 1 else claims)[:2]
            raise ClaimConflict(kind, name, first[0], second[0])
        kept = preferred[0]
        for claim in claims:
            if claim is not kept:
                variants = self._displaced.setdefault((kind, name, kept[0], claim[0]), [])
                if variant_id and variant_id not in variants:
                    variants.append(variant_id)
        return kept[1]

    def _collect_variants(self) -> None:
        claims: dict[str, list[tuple[Origin, Variant]]] = {}
        for plugin, batch in self._answers("bezique_variants", {}):
            origin = self._loader.origin(plugin) if self._loader else LOCAL
            try:
                found = self._checked(batch, installed=origin is not LOCAL)
            except Exception as exc:
                if origin is LOCAL:
                    raise
                self._exclude(plugin, _one_line(exc))
                continue
            for variant in found:
                claims.setdefault(variant.id, []).append((self._owner(plugin, variant), variant))
        variants = {variant_id: self._settle("variant id", variant_id, claimed)
                    for variant_id, claimed in claims.items()}
        self._variants = dict(sorted(variants.items()))
        self.origins: Mapping[str, Origin] = {
            variant_id: next(origin for origin, v in claims[variant_id] if v is variant)
            for variant_id, variant in self._variants.items()}
        """The distribution and version each variant came from, by variant id."""

    def _refuse(self, plugin: object, error: str) -> None:
        """A plugin's answer is wrong: an installed plugin is left out, one handed in raises."""
        if self._loader is None or self._loader.origin(plugin) is LOCAL:
            raise ValueError(error)
        self._exclude(plugin, error)

    def _exclude(self, plugin: object, error: str) -> None:
        assert self._loader is not None
        origin = self._loader.origin(plugin)
        name = self.manager.get_name(plugin) or repr(plugin)
        self._loader.exclude(plugin, origin, name, error)
        self.excluded.append(self._loader.excluded[-1])

    def _answers(self, hook: str, kwargs: Mapping[str, Any]) -> list[tuple[object, Any]]:
        """Each plugin's answer; an installed plugin that raises is left out, a plugin handed
        in directly raises."""
        if self._loader is None:
            return [(impl.plugin, _invoke(impl, kwargs)) for impl in _impls(self.manager, hook)]

        def failed(plugin: object, exc: BaseException) -> None:
            assert self._loader is not None
            if self._loader.origin(plugin) is LOCAL:
                raise exc
            self._exclude(plugin, f"{hook} raised {_one_line(exc)}")

        return self._loader.call(hook, kwargs, failed)

    @staticmethod
    def _checked(batch: Any, *, installed: bool) -> list[Variant]:
        found: list[Variant] = []
        for variant in batch or ():
            if not isinstance(variant, Variant):
                raise TypeError(f"{variant!r} does not implement the Variant protocol")
            if variant.id in [v.id for v in found]:
                raise ValueError(f"the plugin returns the variant id {variant.id!r} twice")
            if installed:
                try:
                    quick_check(variant)
                except Exception as exc:
                    raise PluginError(f"variant {variant.id!r} failed the start-up check: "
                                      f"{_one_line(exc)}") from exc
            found.append(variant)
        return found

    @property
    def variants(self) -> Mapping[str, Variant]:
        return self._variants

    def variant(self, variant_id: str) -> Variant:
        try:
            return self._variants[variant_id]
        except KeyError:
            raise UnknownVariantError(variant_id, self._variants) from None

    def bot_policies(self, variant_id: str) -> Mapping[str, BotPolicy]:
        """Every policy for the variant, ``random`` first."""
        self.variant(variant_id)
        cached = self._policies.get(variant_id)
        if cached is None:
            builtin = RandomPolicy()
            claims: dict[str, list[tuple[Origin, BotPolicy]]] = {
                builtin.name: [(self._module_origin(RandomPolicy.__module__), builtin)]}
            for plugin, batch in self._answers("bezique_bot_policies",
                                               {"variant_id": variant_id}):
                policies = list(batch or ())
                names = [policy.name for policy in policies]
                if len(set(names)) < len(names):
                    self._refuse(plugin, f"bezique_bot_policies returns a policy name twice "
                                         f"for {variant_id!r}: {', '.join(names)}")
                    continue
                for policy in policies:
                    claims.setdefault(policy.name, []).append(
                        (self._owner(plugin, policy), policy))
            cached = {name: self._settle("bot policy", name, claimed, variant_id)
                      for name, claimed in claims.items()}
            self._policies[variant_id] = cached
        return cached

    @property
    def observed(self) -> bool:
        """Whether any plugin implements ``bezique_table_events`` (else nothing to notify)."""
        return bool(self.manager.hook.bezique_table_events.get_hookimpls())

    def notify_events(self, table_id: str, variant_id: str, version: int,
                      events: Sequence[Event]) -> None:
        """Tell every observer; one that raises does not keep the others from hearing. The
        first error is raised once all have been told (the caller logs it)."""
        errors: list[Exception] = []
        arguments = {"table_id": table_id, "variant_id": variant_id, "version": version,
                     "events": events}
        for impl in _impls(self.manager, "bezique_table_events"):
            try:
                _invoke(impl, arguments)
            except Exception as exc:
                errors.append(exc)
        if errors:
            raise errors[0]


def load_registry(*, entry_points: bool = True, plugins: Iterable[object] = (),
                  allow: Iterable[str] = (), deny: Iterable[str] = (),
                  prefer: Iterable[str] = ()) -> Registry:
    """The registry of every installed variant (plus ``plugins``, e.g. in tests).

    ``allow``: only the plugins of these distributions (empty: all); ``deny``: never these;
    ``prefer``: these distributions' claims win a name two plugins claim (else
    :class:`ClaimConflict`)."""
    return Registry(PluginLoader(entry_points=entry_points, plugins=plugins, allow=allow,
                                 deny=deny), prefer)
