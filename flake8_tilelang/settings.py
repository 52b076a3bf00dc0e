"""Command-line settings: ``[tool.flake8-tilelang]`` in pyproject.toml, the
flags that override it, and rule selection with flake8's semantics.

Selection is flake8's ``DecisionEngine`` (explicit beats implicit, the longest
matching prefix wins ties) with ``TLA`` selected by default, plus ``ALL`` (the
empty prefix) and the same opt-in guard as the flake8 plugin: a rule with
``default_enabled=False`` reports only when a select names it by its code or
by a prefix longer than ``TLA``. ``per-file-ignores`` follow Ruff: they always
win over any select.
"""
from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from .registry import ERROR, INFO, WARNING, Rule

SECTION = "flake8-tilelang"
from .output import FORMATS, HUMAN_FORMATS  # noqa: E402,F401 - one list of formats
FAIL_ON = (ERROR, WARNING, INFO)
CACHE_DIR_NAME = ".flake8_tilelang_cache"

DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints",
    ".mypy_cache", ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache",
    ".svn", ".tox", ".venv", ".vscode", "__pycache__", "__pypackages__", "_build", "buck-out",
    "build", "dist", "node_modules", "site-packages", "venv", "*.egg", "*.egg-info", "CVS",
    CACHE_DIR_NAME,
)

# Codes the command line reports itself (flake8 reports E902/E999 too, with
# the same codes). TLA095/TLA096, which lint the suppression comments, are in
# the registry (rules/internal.py) with the other codes.
SYNTAX_ERROR = "E999"
IO_ERROR = "E902"
ALWAYS_REPORTED = (IO_ERROR, SYNTAX_ERROR)


class ConfigError(Exception):
    """Bad configuration or usage: the CLI prints it and exits with 2."""


class CliRule(Rule):
    """A code the command line reports itself (not in the flake8 registry)."""

    def __init__(self, *, example: str = "", use_instead: str = "", **fields):
        super().__init__(**fields)
        self.example = example
        self.use_instead = use_instead

    def docs(self) -> str:  # no example files in rules/examples
        state = "on by default" if self.default_enabled else "opt-in (select it explicitly)"
        if self.code in ALWAYS_REPORTED:
            state = "always reported"
        parts = [
            "# %s %s" % (self.code, self.name), "",
            "Severity: %s. Confidence: %s. %s. Reported by the `flake8-tilelang` command line. "
            "Since %s." % (self.severity, self.confidence, state[0].upper() + state[1:], self.since), "",
            "## What it does", "", self.what.strip(), "",
            "## Why is this bad", "", self.why.strip(), "",
        ]
        if self.example:
            parts += ["## Example", "", "```python", self.example.strip(), "```", ""]
        parts += ["## Use instead", "", self.fix.strip(), ""]
        if self.use_instead:
            parts += ["```python", self.use_instead.strip(), "```", ""]
        parts += ["## Known false positives", "", self.known_false_positives.strip(), "",
                  "## References", "", self.references.strip(), ""]
        return "\n".join(parts)


CLI_RULES = (
    CliRule(
        code=IO_ERROR, name="io-error", severity=ERROR, confidence="high",
        summary="the file could not be read or decoded",
        what=("The file does not exist, cannot be read, or is not valid in its declared encoding "
              "(UTF-8 unless a PEP 263 coding line says otherwise)."),
        why="A file that cannot be read was not checked.",
        fix="Fix the path or the file's encoding, or exclude the file.",
        known_false_positives="None.", references="flake8 reports unreadable files as E902 too.",
        since="0.2.0",
    ),
    CliRule(
        code=SYNTAX_ERROR, name="syntax-error", severity=ERROR, confidence="high",
        summary="the file is not valid Python for this interpreter",
        what="The file mentions tilelang but does not parse, so no rule could check it.",
        why="Nothing in the file was checked.",
        fix="Fix the syntax error (or run the checker with the Python version the file targets).",
        known_false_positives="Syntax newer than the running Python is reported as an error.",
        references="flake8 and Ruff report syntax errors as E999 / syntax-error too.",
        since="0.2.0",
    ),
)


def known_rules() -> List[Rule]:
    """Registry rules plus the command line's own codes, sorted by code (a
    code the registry defines wins over the fallback here)."""
    from .registry import all_rules

    rules = {r.code: r for r in all_rules()}
    for r in CLI_RULES:
        rules.setdefault(r.code, r)
    return [rules[c] for c in sorted(rules, key=lambda c: (not c.startswith("TLA"), c))]


def selectable_codes(rules: Iterable[Rule]) -> List[str]:
    return [r.code for r in rules if r.code not in ALWAYS_REPORTED]


# -- selection -------------------------------------------------------------------

_SELECTOR = re.compile(r"^(ALL|[A-Z]{1,3}[0-9]{0,3})$")


def split_list(value: str) -> List[str]:
    return [v.strip() for v in re.split(r"[,\s]+", value) if v.strip()]


def validate_selectors(values: Iterable[str], codes: Sequence[str], where: str) -> List[str]:
    out = []
    for raw in values:
        sel = raw.strip()
        if not sel:
            continue
        if sel.upper() == "ALL":
            out.append("ALL")
            continue
        if not _SELECTOR.match(sel) or not any(c.startswith(sel) for c in codes):
            hint = ""
            up = sel.upper()
            if up != sel and any(c.startswith(up) for c in codes):
                hint = " (codes are upper case: %s)" % up
            elif sel in ALWAYS_REPORTED:
                hint = " (%s is always reported; exclude the file instead)" % sel
            raise ConfigError(
                "%s: unknown rule selector %r%s; use ALL, TLA or a TLA code or prefix "
                "(`flake8-tilelang rules` lists them)" % (where, raw, hint))
        out.append(sel)
    return out


def _sorted_prefixes(values: Iterable[str]) -> Tuple[str, ...]:
    return tuple(sorted(("" if v == "ALL" else v for v in values), reverse=True))


def decide(code: str, select: Optional[Sequence[str]], extend_select: Sequence[str],
           ignore: Optional[Sequence[str]], extend_ignore: Sequence[str],
           default_select: Sequence[str] = ("TLA",),
           default_ignore: Sequence[str] = ()) -> bool:
    """flake8's ``DecisionEngine.make_decision`` (7.x), True for Selected."""
    sel_explicit = _sorted_prefixes(list(select or []) + list(extend_select))
    ign_explicit = _sorted_prefixes(list(ignore or []) + list(extend_ignore))
    selected = _sorted_prefixes(
        (list(select) if select is not None else list(default_select)) + list(extend_select))
    ignored = _sorted_prefixes(
        (list(ignore) if ignore is not None else list(default_ignore)) + list(extend_ignore))

    if code.startswith(sel_explicit):
        s = "explicit"
    elif code.startswith(selected):
        s = "implicit"
    else:
        s = "no"
    if code.startswith(ign_explicit):
        i = "explicit"
    elif code.startswith(ignored):
        i = "implicit"
    else:
        i = "no"
    if s != "no" and i == "no":
        return True
    if s == "no" and i != "no":
        return False
    if s == "explicit" and i != "explicit":
        return True
    if s != "explicit" and i == "explicit":
        return False
    if s == "no" and i == "no":
        return False
    # in both lists: the longest prefix wins
    best_select = next(p for p in selected if code.startswith(p))
    best_ignore = next(p for p in ignored if code.startswith(p))
    return len(best_select) > len(best_ignore)


def explicitly_named(code: str, selects: Iterable[str]) -> bool:
    """Named by its code or a prefix longer than ``TLA`` (never by ALL/TLA)."""
    names = set(selects)
    return any(code[:i] in names for i in range(4, len(code) + 1))


# -- paths ---------------------------------------------------------------------

# A glob's cost budget: a pull request controls both the patterns and the file
# names, and each pattern is matched against every walked entry.
MAX_GLOB_CHARS = 256
MAX_GLOB_WILDCARDS = 32
MAX_GLOBS = 512  # per option or key


def _class_regex(body: str) -> str:
    """A glob class body (``a-z``, ``!abc``) as a regex class in which every
    character is literal except the range dashes: ``[[]`` or ``[a&&b]``
    never reach ``re`` as a nested set (no FutureWarning, no surprise)."""
    negate = body.startswith("!")
    if negate:
        body = body[1:]
    out = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            out.append("%s-%s" % (re.escape(body[i]), re.escape(body[i + 2])))
            i += 3
        else:
            out.append(re.escape(body[i]))
            i += 1
    return "[%s%s]" % ("^" if negate else "", "".join(out))


def _glob_tokens(pattern: str) -> List[Tuple[str, object]]:
    """("lit", c) / ("one", None) / ("class", compiled) / ("star", None) /
    ("dstar", None) / ("dstar/", None) for a glob."""
    out: List[Tuple[str, object]] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append(("dstar/", None))
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(("dstar", None))
            i += 2
            continue
        if c == "*":
            out.append(("star", None))
        elif c == "?":
            out.append(("one", None))
        elif c == "[" and pattern.find("]", i + 1) != -1:
            j = pattern.find("]", i + 1)
            out.append(("class", re.compile(_class_regex(pattern[i + 1:j]))))
            i = j
        else:
            out.append(("lit", c))
        i += 1
    return out


class _GlobMatcher:
    """A glob with two or more stars, matched by dynamic programming over
    (token, position): time is linear in the pattern times the text, never
    the exponential backtracking a regex of several ``[^/]*`` can take on a
    crafted file name (a pull request controls both)."""

    __slots__ = ("tokens",)

    def __init__(self, pattern: str):
        self.tokens = _glob_tokens(pattern)

    def match(self, text: str) -> bool:
        n = len(text)
        # reach[j]: the tokens so far can consume exactly text[:j]
        reach = [False] * (n + 1)
        reach[0] = True
        for kind, arg in self.tokens:
            nxt = [False] * (n + 1)
            if kind == "star" or kind == "dstar":
                run = False
                for j in range(n + 1):
                    if reach[j]:
                        run = True
                    elif run and kind == "star" and text[j - 1] == "/":
                        run = False
                    nxt[j] = run
            elif kind == "dstar/":  # (?:.*/)? : nothing, or anything ending in "/"
                run = False
                for j in range(n + 1):
                    nxt[j] = reach[j] or (j > 0 and text[j - 1] == "/" and run)
                    run = run or reach[j]
            else:
                for j in range(n):
                    if reach[j]:
                        c = text[j]
                        if kind == "lit":
                            ok = c == arg
                        elif kind == "one":
                            ok = c != "/"
                        else:
                            ok = arg.match(c) is not None  # type: ignore[union-attr]
                        if ok:
                            nxt[j + 1] = True
            reach = nxt
            if not any(reach):
                return False
        return reach[n]


def _glob_regex(pattern: str):
    if sum(1 for kind, _ in _glob_tokens(pattern) if kind in ("star", "dstar", "dstar/")) >= 2:
        return _GlobMatcher(pattern)
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                out.append(_class_regex(pattern[i + 1:j]))
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("^" + "".join(out) + "$")


@dataclass(frozen=True)
class PathPattern:
    """A Ruff-style path glob: without ``/`` it matches any file or directory
    name; with ``/`` it matches the path relative to the project root (``**``
    crosses directories, ``*`` does not). A directory match covers everything
    below it."""

    pattern: str

    def matches_name(self, name: str) -> bool:
        return "/" not in self.pattern.strip("/") and bool(self._compiled().match(name))

    def matches_rel(self, rel: str) -> bool:
        """``rel``: posix path relative to the project root; also true when a
        parent directory of ``rel`` matches."""
        rx = self._compiled()
        parts = rel.split("/")
        if "/" not in self.pattern.strip("/"):
            return any(rx.match(p) for p in parts)
        return any(rx.match("/".join(parts[:i])) for i in range(1, len(parts) + 1))

    def _compiled(self):
        rx = _COMPILED.get(self.pattern)
        if rx is None:
            p = self.pattern.strip("/")
            if p.startswith("./"):
                p = p[2:]
            if len(_COMPILED) >= 4096:  # a long-lived server meets many configurations
                _COMPILED.clear()
            rx = _COMPILED[self.pattern] = _glob_regex(p)
        return rx


_COMPILED: Dict[str, "re.Pattern[str]"] = {}


def validate_globs(patterns: Iterable[str], where: str) -> List[str]:
    """The patterns, each compiled once here so that an invalid glob (a
    reversed range ``[z-a]``, an empty class ``[]``) is a configuration
    error naming the option or key, never an error while files are walked
    or checked."""
    out = []
    for pattern in patterns:
        if len(pattern) > MAX_GLOB_CHARS:
            raise ConfigError("%s: a glob of %d characters is above the limit of %d" % (
                where, len(pattern), MAX_GLOB_CHARS))
        wildcards = sum(1 for kind, _ in _glob_tokens_shape(pattern) if kind != "lit")
        if wildcards > MAX_GLOB_WILDCARDS:
            raise ConfigError("%s: invalid glob %r: %d wildcards, above the limit of %d" % (
                where, pattern, wildcards, MAX_GLOB_WILDCARDS))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                PathPattern(pattern)._compiled()
        except (re.error, ValueError, TypeError, RecursionError) as exc:
            raise ConfigError("%s: invalid glob %r: %s" % (where, pattern, getattr(exc, "msg", exc)))
        out.append(pattern)
        if len(out) > MAX_GLOBS:
            raise ConfigError("%s: more than %d globs" % (where, MAX_GLOBS))
    return out


def _glob_tokens_shape(pattern: str) -> List[Tuple[str, None]]:
    """The token kinds of a glob, without compiling its classes."""
    out: List[Tuple[str, None]] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out.append(("dstar", None))
            i += 3 if pattern.startswith("**/", i) else 2
            continue
        c = pattern[i]
        if c in "*?":
            out.append(("wild", None))
        elif c == "[" and pattern.find("]", i + 1) != -1:
            out.append(("class", None))
            i = pattern.find("]", i + 1)
        else:
            out.append(("lit", None))
        i += 1
    return out


def relative_posix(path: str, root: str) -> str:
    try:
        rel = os.path.relpath(os.path.abspath(path), root)
    except ValueError:  # another drive
        rel = os.path.abspath(path)
    return rel.replace(os.sep, "/")


# -- settings ------------------------------------------------------------------

@dataclass(frozen=True)
class Settings:
    select: Optional[Tuple[str, ...]] = None
    extend_select: Tuple[str, ...] = ()
    ignore: Optional[Tuple[str, ...]] = None
    extend_ignore: Tuple[str, ...] = ()
    # ((pattern, negated, codes), ...)
    per_file_ignores: Tuple[Tuple[str, bool, Tuple[str, ...]], ...] = ()
    exclude: Optional[Tuple[str, ...]] = None
    extend_exclude: Tuple[str, ...] = ()
    output_format: str = "full"
    project_root: str = "."
    config_path: Optional[str] = None
    report_unused_noqa: bool = False
    disable_noqa: bool = False
    enabled: FrozenSet[str] = field(default=frozenset())
    # Ruff's fix settings (``fix``, ``unsafe-fixes``, ``show-fixes``); they
    # change what a run writes, never what it finds (not in the fingerprint)
    fix: bool = False
    unsafe_fixes: bool = False
    show_fixes: bool = False
    # The chip the capacity/dtype rules compare with ("A2/A3", "A2", "A3", "A5")
    target_chip: str = "A2/A3"
    # The dialect of compile sites that name no target ("ascendc" or "npuir")
    # the `target` setting; None: not set (sites with no target are Ascend C, unless a
    # kernel is written in the npuir dialect: see model.dialect.configured)
    target: Optional[str] = None
    # Ruff's ``src``: first-party roots for ``from compiler.x import y`` (absolute
    # paths, inside the folder of the configuration that names them)
    src: Tuple[str, ...] = ()
    # Where each rule's page is: a URL template with ``{code}`` (``docs-url``);
    # None: no link (output only, not in the fingerprint)
    docs_url: Optional[str] = None

    # The effective lists
    @property
    def effective_exclude(self) -> Tuple[str, ...]:
        base = DEFAULT_EXCLUDE if self.exclude is None else self.exclude
        return tuple(base) + tuple(self.extend_exclude)

    def wanted(self, code: str) -> bool:
        return code in self.enabled

    def per_file_codes(self, path: str) -> Tuple[str, ...]:
        """Codes and prefixes ``per-file-ignores`` turn off for ``path``."""
        if not self.per_file_ignores:
            return ()
        rel = relative_posix(path, self.project_root)
        out: List[str] = []
        for pattern, negated, codes in self.per_file_ignores:
            hit = PathPattern(pattern).matches_rel(rel)
            if hit != negated:
                out.extend(codes)
        return tuple(out)

    def fingerprint(self) -> str:
        """Everything that changes what ``check`` reports for a given file."""
        return repr((sorted(self.enabled), self.per_file_ignores, self.project_root,
                     self.report_unused_noqa, self.disable_noqa, self.target_chip, self.target,
                     self.src))


def compute_enabled(codes: Sequence[str], rules: Dict[str, Rule], select, extend_select, ignore,
                    extend_ignore, report_unused_noqa: bool) -> FrozenSet[str]:
    """The codes that report: flake8's decision with the opt-in codes in the
    default ignore list (``extend_default_ignore``), then the plugin's guard
    (opt-in codes only when named explicitly). ``--report-unused-noqa`` is an
    explicit ``extend-select`` of TLA096."""
    extend_select = list(extend_select) + (["TLA096"] if report_unused_noqa else [])
    opt_in = [c for c in codes if not rules[c].default_enabled]
    explicit = list(select or []) + extend_select
    return frozenset(
        code for code in codes
        if decide(code, select, extend_select, ignore, extend_ignore, default_ignore=opt_in)
        and (rules[code].default_enabled or explicitly_named(code, explicit)))


# -- pyproject -----------------------------------------------------------------

KEYS = ("select", "extend-select", "ignore", "extend-ignore", "per-file-ignores", "exclude",
        "extend-exclude", "output-format", "fix", "unsafe-fixes", "show-fixes", "target-chip", "target",
        "src", "docs-url")
BOOL_KEYS = ("fix", "unsafe-fixes", "show-fixes")


# pyproject.toml is read whole before parsing: a cap on its size, and on the
# parts of one dotted key (the TOML parser is quadratic in them).
MAX_CONFIG_BYTES = 1 << 20
# ... and on the bytes of all the pyproject.toml files one run reads (a tree with
# a big configuration in every folder)
MAX_CONFIG_BYTES_PER_RUN = 16 << 20
MAX_KEY_PARTS = 128
_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')"""
_LONG_DOTTED_KEY = re.compile(r"(?<![A-Za-z0-9_.-])%s(?:[ \t]*\.[ \t]*%s){%d}" % (
    _KEY_PART, _KEY_PART, MAX_KEY_PARTS))


def _read_config(path: str, lenient: bool = False) -> Optional[bytes]:
    """The bytes of a configuration file: a regular file (``stat`` before
    opening: a FIFO never blocks the run) of at most MAX_CONFIG_BYTES.
    ``lenient``: a file that cannot be opened is None (a pyproject.toml met
    on the way up that may not be ours), not an error."""
    import stat as _stat

    try:
        st = os.stat(path)
        if not _stat.S_ISREG(st.st_mode):
            raise ConfigError("%s: cannot read: not a regular file" % path)
        if st.st_size > MAX_CONFIG_BYTES:
            raise ConfigError("%s: %d bytes, above the limit of %d for a configuration file" % (
                path, st.st_size, MAX_CONFIG_BYTES))
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
                     | getattr(os, "O_CLOEXEC", 0))
        with open(fd, "rb", closefd=True) as f:
            if not _stat.S_ISREG(os.fstat(fd).st_mode):
                raise ConfigError("%s: cannot read: not a regular file" % path)
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        if lenient:
            return None
        raise ConfigError("%s: cannot read: %s" % (path, exc.strerror or exc))
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError("%s: above the limit of %d bytes for a configuration file" % (
            path, MAX_CONFIG_BYTES))
    return data


def _load_toml(path: str, data: Optional[bytes] = None) -> dict:
    """The parsed file; every failure (unreadable, too big, invalid, too
    deep, a key of too many parts) is a ConfigError naming the file."""
    try:
        import tomllib  # type: ignore[import-not-found]
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    if data is None:
        data = _read_config(path)
    assert data is not None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError("%s: invalid TOML: not UTF-8 (%s)" % (path, exc.reason))
    if _LONG_DOTTED_KEY.search(text):
        raise ConfigError("%s: invalid TOML for this tool: a dotted key of more than %d parts" % (
            path, MAX_KEY_PARTS))
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("%s: invalid TOML: %s" % (path, exc))
    except RecursionError:
        raise ConfigError("%s: invalid TOML for this tool: nested too deeply" % path)
    except MemoryError:
        raise ConfigError("%s: invalid TOML for this tool: too large to parse" % path)
    except Exception as exc:  # the parser's own bug on crafted input: still one line
        raise ConfigError("%s: cannot parse: %s: %s" % (path, type(exc).__name__, exc))


def find_config(start: str) -> Optional[str]:
    """The nearest pyproject.toml (from ``start`` upwards) that has a
    ``[tool.flake8-tilelang]`` table; others are skipped like Ruff does."""
    d = os.path.abspath(start)
    while True:
        found = _config_here(d)
        if found is not None:
            return found
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _suggest_key(key: str) -> str:
    import difflib

    if key.replace("_", "-") in KEYS:
        return " (did you mean %r? keys use dashes)" % key.replace("_", "-")
    close = difflib.get_close_matches(key, KEYS, n=1)
    return " (did you mean %r?)" % close[0] if close else ""


def _str_list(value, where: str) -> List[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError("%s: expected a list of strings, got %s" % (where, _type(value)))
    return list(value)


def _type(value) -> str:
    return {str: "a string", bool: "a boolean", int: "an integer", float: "a float",
            dict: "a table", list: "a list"}.get(type(value), type(value).__name__)


def read_config(path: str, codes: Sequence[str], explicit: bool = False) -> Dict[str, object]:
    """Validated ``[tool.flake8-tilelang]`` table of ``path``, keys with dashes.

    ``explicit`` (``--config FILE``): a ``pyproject.toml`` without the table
    is an error; any other TOML file may hold the keys at its top level, like
    ``ruff.toml`` (or the same table)."""
    data = _load_toml(path)
    tool = data.get("tool", {})
    table = tool.get(SECTION) if isinstance(tool, dict) else None
    where0 = "%s: [tool.%s]" % (path, SECTION)
    if table is None and explicit:
        if os.path.basename(path) == "pyproject.toml":
            raise ConfigError("%s has no [tool.%s] table (a pyproject.toml given to --config must "
                              "have one)" % (path, SECTION))
        table = {k: v for k, v in data.items() if k != "tool"}
        where0 = path
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise ConfigError("%s must be a table, got %s" % (where0, _type(table)))
    out: Dict[str, object] = {}
    for key, value in table.items():
        where = "%s %s" % (where0, key)
        if key not in KEYS:
            raise ConfigError("%s: unknown key %r%s; known keys: %s" % (
                where0, key, _suggest_key(key), ", ".join(KEYS)))
        if key in ("select", "extend-select", "ignore", "extend-ignore"):
            out[key] = validate_selectors(_str_list(value, where), codes, where)
        elif key in ("exclude", "extend-exclude"):
            out[key] = validate_globs(_str_list(value, where), where)
        elif key in BOOL_KEYS:
            if not isinstance(value, bool):
                raise ConfigError("%s: expected true or false, got %s" % (where, _type(value)))
            out[key] = value
        elif key == "output-format":
            if not isinstance(value, str):
                raise ConfigError("%s: expected a string, got %s" % (where, _type(value)))
            if value not in FORMATS:
                raise ConfigError("%s: unknown output format %r; choose one of %s" % (
                    where, value, ", ".join(FORMATS)))
            out[key] = value
        elif key == "target-chip":
            out[key] = chip_setting(value, where)
        elif key == "target":
            out[key] = target_setting(value, where)
        elif key == "src":
            out[key] = src_setting(_str_list(value, where), os.path.dirname(os.path.abspath(path)), where)
        elif key == "docs-url":
            out[key] = docs_url_setting(value, where)
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError("%s: expected a table of pattern = [codes], got %s" % (
                    where, _type(value)))
            if len(value) > MAX_GLOBS:
                raise ConfigError("%s: more than %d globs" % (where, MAX_GLOBS))
            entries = []
            for pattern, pcodes in value.items():
                pwhere = "%s %r" % (where, pattern)
                if isinstance(pcodes, str):
                    pcodes = split_list(pcodes)
                pcodes = validate_selectors(_str_list(pcodes, pwhere), codes, pwhere)
                entry = _pfi_entry(pattern, pcodes)
                validate_globs([entry[0]], pwhere)
                entries.append(entry)
            out[key] = tuple(entries)
    return out


def _pfi_entry(pattern: str, codes: Sequence[str]) -> Tuple[str, bool, Tuple[str, ...]]:
    negated = pattern.startswith("!")
    codes = tuple("" if c == "ALL" else c for c in codes)
    return (pattern[1:] if negated else pattern, negated, codes)


def parse_per_file_ignores(values: Sequence[str], codes: Sequence[str]):
    """flake8's command-line form: ``"a.py:TLA001,TLA002 tests/*:TLA"``."""
    entries = []
    for value in values:
        for item in value.split():
            if ":" not in item:
                raise ConfigError("--per-file-ignores: %r is not PATTERN:CODES" % item)
            pattern, _, pcodes = item.rpartition(":")
            if not pattern or not pcodes:
                raise ConfigError("--per-file-ignores: %r is not PATTERN:CODES" % item)
            checked = validate_selectors(split_list(pcodes), codes, "--per-file-ignores %s" % pattern)
            for pat in pattern.split(","):
                entry = _pfi_entry(pat, checked)
                validate_globs([entry[0]], "--per-file-ignores")
                entries.append(entry)
                if len(entries) > MAX_GLOBS:
                    raise ConfigError("--per-file-ignores: more than %d globs" % MAX_GLOBS)
    return tuple(entries)


_FIND = object()


def src_setting(entries: Sequence[str], base: str, where: str) -> Tuple[str, ...]:
    """``src`` folders (relative to ``base``, the configuration's folder) as
    absolute paths; each must stay inside ``base``, also once symlinks are
    resolved (a folder that does not exist yet is kept: it holds no module)."""
    out: List[str] = []
    real_base = os.path.realpath(base)
    for entry in entries:
        if not entry.strip() or "\x00" in entry:
            raise ConfigError("%s: %r is not a folder name" % (where, entry))
        if os.path.isabs(entry) or os.path.splitdrive(entry)[0]:
            raise ConfigError("%s: %r is absolute; give a folder relative to %s" % (where, entry, base))
        path = os.path.normpath(os.path.join(base, entry))
        for candidate, root in ((path, os.path.normpath(base)), (os.path.realpath(path), real_base)):
            try:
                inside = os.path.commonpath([candidate, root]) == root
            except ValueError:  # another drive
                inside = False
            if not inside:
                raise ConfigError("%s: %r is outside the project folder %s%s" % (
                    where, entry, base, " once symlinks are resolved" if candidate != path else ""))
        out.append(path)
    return tuple(dict.fromkeys(out))


def _named_choice(value, where: str, what: str, normalise, names, default: str) -> str:
    """``value`` normalised by ``normalise``, or a ConfigError naming the choices."""
    chosen = normalise(value)
    if chosen is None:
        raise ConfigError("%s: unknown %s %r; choose one of %s (default %s)" % (
            where, what, value if isinstance(value, str) else _type(value), ", ".join(names), default))
    return chosen


def target_setting(value, where: str) -> str:
    """A ``target`` value: "ascendc" (also "pto") or "npuir"."""
    from .model import dialect

    return _named_choice(value, where, "target", dialect.normalise, dialect.NAMES, "ascendc")


def chip_setting(value, where: str) -> str:
    """A ``target-chip`` value, normalised ("A2/A3", "A2", "A3", "A5")."""
    from .model import chip

    return _named_choice(value, where, "chip", chip.normalise, chip.NAMES, "A2/A3")


MAX_DOCS_URL = 2048
DOCS_URL_SCHEMES = ("http", "https", "file")
_URL_UNSAFE = re.compile(r"[\x00-\x20\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def docs_url_setting(value, where: str) -> Optional[str]:
    """A ``docs-url`` template: an http, https or file URL in which ``{code}``
    stands for the rule's code (``https://example.org/rules/{code}.md``);
    the empty string means no link. Anything else is a ConfigError."""
    if not isinstance(value, str):
        raise ConfigError("%s: expected a string, got %s" % (where, _type(value)))
    if value == "":
        return None
    if len(value) > MAX_DOCS_URL:
        raise ConfigError("%s: a URL of %d characters is above the limit of %d" % (
            where, len(value), MAX_DOCS_URL))
    shown = value if len(value) <= 200 else value[:200] + "..."
    if _URL_UNSAFE.search(value):
        raise ConfigError("%s: %r has spaces or control characters; percent-encode them" % (where, shown))
    if "{code}" not in value:
        raise ConfigError("%s: %r has no {code}, where each rule's code goes "
                          "(e.g. https://example.org/rules/{code}.md)" % (where, shown))
    rest = value.replace("{code}", "")
    if "{" in rest or "}" in rest:
        raise ConfigError("%s: %r: only {code} is replaced; percent-encode other braces (%%7B %%7D)" % (
            where, shown))
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value.replace("{code}", "TLA001"))
    except ValueError as exc:
        raise ConfigError("%s: %r is not a URL: %s" % (where, shown, exc))
    scheme = parts.scheme.lower()
    if scheme not in DOCS_URL_SCHEMES:
        raise ConfigError("%s: %r: the scheme must be http, https or file, got %s" % (
            where, shown, repr(parts.scheme) if parts.scheme else "none"))
    if scheme in ("http", "https") and not parts.hostname:
        raise ConfigError("%s: %r has no host" % (where, shown))
    if scheme == "file" and not parts.path.startswith("/"):
        raise ConfigError("%s: %r: a file URL needs an absolute path (file:///...)" % (where, shown))
    return value


def build_settings(args, cwd: Optional[str] = None, config_path=_FIND) -> Settings:
    """Settings from the config file and the parsed command-line ``args``
    (attributes: config, isolated, select, extend_select, ignore,
    extend_ignore, per_file_ignores, exclude, extend_exclude, output_format,
    report_unused_noqa, disable_noqa; any may be missing). The config file
    is ``--config``, else ``config_path`` when given, else the nearest
    ``pyproject.toml`` with a ``[tool.flake8-tilelang]`` table above ``cwd``."""
    cwd = os.path.abspath(cwd or os.getcwd())
    rules = {r.code: r for r in known_rules()}
    codes = selectable_codes(rules.values())

    conf: Dict[str, object] = {}
    explicit_config = getattr(args, "config", None)
    if explicit_config:
        if not os.path.isfile(explicit_config):
            raise ConfigError("--config: %s: no such file" % explicit_config)
        config_path = os.path.abspath(explicit_config)
        conf = read_config(config_path, codes, explicit=True)
    elif getattr(args, "isolated", False):
        config_path = None
    else:
        if config_path is _FIND:
            config_path = find_config(cwd)
        if config_path:
            conf = read_config(config_path, codes)
    root = os.path.dirname(config_path) if config_path else cwd

    def flag(name: str, option: str):
        values = getattr(args, name, None)
        if values is None:
            return None
        flat: List[str] = []
        for v in values:
            flat.extend(split_list(v))
        return validate_selectors(flat, codes, option)

    select = flag("select", "--select")
    if select is None:
        select = conf.get("select")
    ignore = flag("ignore", "--ignore")
    if ignore is None:
        ignore = conf.get("ignore")
    extend_select = list(conf.get("extend-select", [])) + list(flag("extend_select", "--extend-select") or [])
    extend_ignore = list(conf.get("extend-ignore", [])) + list(flag("extend_ignore", "--extend-ignore") or [])

    pfi_args = getattr(args, "per_file_ignores", None)
    if pfi_args:
        per_file = parse_per_file_ignores(pfi_args, codes)
    else:
        per_file = conf.get("per-file-ignores", ())

    def path_list(name: str):
        values = getattr(args, name, None)
        if values is None:
            return None
        out: List[str] = []
        for v in values:
            out.extend(p.strip() for p in v.split(",") if p.strip())
        return out

    exclude = path_list("exclude")
    if exclude is None:
        exclude = conf.get("exclude")
    else:
        validate_globs(exclude, "--exclude")
    extend_exclude = list(conf.get("extend-exclude", [])) + validate_globs(
        path_list("extend_exclude") or [], "--extend-exclude")

    fmt = getattr(args, "output_format", None) or conf.get("output-format") or "full"
    report_unused = bool(getattr(args, "report_unused_noqa", False))
    enabled = compute_enabled(codes, rules, select, extend_select, ignore, extend_ignore,
                              report_unused)
    return Settings(
        select=None if select is None else tuple(select),
        extend_select=tuple(extend_select),
        ignore=None if ignore is None else tuple(ignore),
        extend_ignore=tuple(extend_ignore),
        per_file_ignores=tuple(per_file),  # type: ignore[arg-type]
        exclude=None if exclude is None else tuple(exclude),  # type: ignore[arg-type]
        extend_exclude=tuple(extend_exclude),
        output_format=str(fmt),
        project_root=root,
        config_path=config_path,
        report_unused_noqa=report_unused,
        disable_noqa=bool(getattr(args, "disable_noqa", False)),
        enabled=enabled,
        fix=_switch(args, "fix", conf),
        unsafe_fixes=_switch(args, "unsafe_fixes", conf),
        show_fixes=_switch(args, "show_fixes", conf),
        target_chip=chip_setting(getattr(args, "target_chip", None), "--target-chip")
        if getattr(args, "target_chip", None) else str(conf.get("target-chip", "A2/A3")),
        # None when neither the command line nor pyproject sets it: Ascend C, but weaker
        # than a kernel written in the npuir dialect (model.dialect.configured)
        target=target_setting(getattr(args, "target", None), "--target")
        if getattr(args, "target", None) else (str(conf["target"]) if conf.get("target") else None),
        src=tuple(conf.get("src", ())),  # type: ignore[arg-type]
        docs_url=docs_url_setting(args.docs_url, "--docs-url")
        if getattr(args, "docs_url", None) is not None else conf.get("docs-url"),  # type: ignore[arg-type]
    )


def _switch(args, name: str, conf: Dict[str, object]) -> bool:
    """A --flag / --no-flag pair (None when neither is given), else the config key."""
    value = getattr(args, name, None)
    if value is None:
        value = conf.get(name.replace("_", "-"), False)
    return bool(value)


class SettingsFinder:
    """Settings per file, Ruff's rule: the closest ``pyproject.toml`` with a
    ``[tool.flake8-tilelang]`` table above the file decides (its
    ``per-file-ignores`` and excludes relative to its own folder), the
    command-line flags override every one of them; ``--config`` and
    ``--isolated`` use one set for every file. ``base`` is the set for the
    working directory (output format, discovery of the named paths)."""

    def __init__(self, args, cwd: Optional[str] = None):
        self.args = args
        self.cwd = os.path.abspath(cwd or os.getcwd())
        self.base = build_settings(args, self.cwd)
        self.fixed = bool(getattr(args, "config", None) or getattr(args, "isolated", False))
        self._by_config: Dict[Optional[str], Settings] = {self.base.config_path: self.base}
        self._config_of_dir: Dict[str, Optional[str]] = {}
        self._budget = [MAX_CONFIG_BYTES_PER_RUN]  # bytes of pyproject.toml files left to read

    def _config_for_dir(self, directory: str) -> Optional[str]:
        chain = []
        d = directory
        found: Optional[str] = None
        while True:
            if d in self._config_of_dir:
                found = self._config_of_dir[d]
                break
            chain.append(d)
            path = _config_here(d, self._budget)
            if path is not None:
                found = path
                break
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
        for c in chain:
            self._config_of_dir[c] = found
        return found

    def for_path(self, path: str) -> Settings:
        if self.fixed or path == "-":
            return self.base
        config = self._config_for_dir(os.path.dirname(os.path.abspath(path)))
        settings = self._by_config.get(config)
        if settings is None:
            settings = build_settings(self.args, self.cwd, config_path=config)
            self._by_config[config] = settings
        return settings


def _config_here(directory: str, budget: Optional[List[int]] = None) -> Optional[str]:
    """``directory/pyproject.toml`` when it has a ``[tool.flake8-tilelang]``
    table; ``budget``: the bytes the run may still read (over it, a
    ConfigError naming the file)."""
    path = os.path.join(directory, "pyproject.toml")
    if not os.path.isfile(path):
        return None
    raw = _read_config(path, lenient=True)
    if raw is not None and budget is not None:
        budget[0] -= len(raw)
        if budget[0] < 0:
            raise ConfigError("%s: the pyproject.toml files of this tree total more than %d bytes, "
                              "the limit for one run" % (path, MAX_CONFIG_BYTES_PER_RUN))
    if raw is None or b"flake8-tilelang" not in raw:
        return None
    data = _load_toml(path, raw)
    tool = data.get("tool")
    return path if isinstance(tool, dict) and SECTION in tool else None
