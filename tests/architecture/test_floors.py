"""The floors and rooms of ARCHITECTURE.md, checked on the real import graph (grimp, the
engine of import-linter) and the real tree: every import runs down or stays on its floor, no
circle between files, no import hidden in a function beyond the three start-up hooks, no
module over 600 lines, no folder over 15 modules nor three modules of one family (one name
prefix) side by side, no game module outside the games package, every package named in
ARCHITECTURE.md's tree, and the API contract's document unchanged."""

from __future__ import annotations

import ast
import graphlib
import json
import re
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The apps, from the ground up (ARCHITECTURE.md, "The floors").
PACKAGES = ("tournament", "qualifying", "races", "standings", "paddock")
#: On top of every floor: what measures the apps; nothing imports it.
TOOLS = ("bench",)

# Longest prefix wins. 0: pure rules (no Django, no project import but other rules);
# 1: the ground; 2: qualifying; 3: races; 4: the other games; 5: standings; 6: the roof;
# 7: the bench.
FLOORS: dict[str, int] = {
    "tournament.rules": 0,  # the ground's: the stopwatch's reading, the scales, the skill model
    "tournament.signup.rules": 0,
    "qualifying.scoring": 0,
    "qualifying.seating.rules": 0,
    "races.grid.allocation": 0,
    "races.grid.configuration": 0,
    "races.grid.stands": 0,
    "races.results.rules": 0,
    "races.results.points": 0,
    "races.sanctions.rules": 0,
    "races.weather.rules": 0,
    "races.games": 0,  # the package's __init__: the registry of the games' pure rules
    "races.games._ranking": 0,
    "races.games.cannes_monaco.rules": 0,
    "races.games.racetrack.rules": 0,
    "races.games.rallyman.rules": 0,
    "races.games.quick.rules": 0,
    "races.games.finishing_order.rules": 0,
    "standings.careers.chart": 0,
    "standings.ratings.rules": 0,
    "standings.leagues.rules": 0,
    "tournament": 1,
    "qualifying": 2,
    "races": 3,
    "races.games.cannes_monaco": 4,
    "races.games.racetrack": 4,
    "races.games.rallyman": 4,
    "races.games.quick": 4,
    "races.games.finishing_order": 4,
    "races.games.table_sheet": 4,
    "races.games.demo": 4,
    "races.games.urls": 4,
    "races.games.variants": 4,
    "races.games.apps": 4,
    "standings": 5,
    "paddock": 6,
    "bench": 7,
}
#: What the ground (floor 1) still reads of a floor above it: the pure rules whose words its
#: forms and wording show (the event's form offers the race floor's configurations and the
#: quick rules' settings). Floor 0 allows it; listed so that no other one comes in unseen.
GROUND_READS_ABOVE = {
    ("tournament.registration.forms", "races.games.quick.rules"),
    ("tournament.registration.forms", "races.grid.configuration"),
    ("tournament.wording", "races.games.quick.rules"),
    ("tournament.wording", "races.grid.configuration"),
    ("tournament.wording", "races.results.rules"),
}
#: The most of the code's lines (migrations and tests aside) the ground may hold: the ground
#: is what every app stands on, not where everything lands (issue 50 found it at half).
GROUND_SHARE = 0.35
#: Function-level imports of project modules that must stay so, each with its reason.
FUNCTION_LEVEL = {
    ("qualifying.apps", "qualifying.links"): "models load only once every app is ready",
    ("races.apps", "races.links"): "models load only once every app is ready",
    ("races.apps", "races.photos.storage"): "models load only once every app is ready",
    ("races.games.apps", "races.games.variants"): "models load only once every app is ready",
    ("standings.apps", "standings.ratings.soon"): "models load only once every app is ready",
    ("standings.leagues.apps", "standings.leagues.matching"): "models load once apps are ready",
}
MAX_LINES = 600
#: A folder of more modules than this is several rooms (STYLE.md, "Rooms").
MAX_MODULES = 15


def floor_of(module: str) -> int:
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in FLOORS:
            return FLOORS[prefix]
    raise AssertionError(f"{module} has no floor: add it to FLOORS and ARCHITECTURE.md")


def _is_own(module: str) -> bool:
    return ".migrations" not in module


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, *TOOLS, cache_dir=None)


def _where(graph: grimp.ImportGraph, importer: str, imported: str) -> str:
    """The importing line: ``races/results/services.py:38: from … import …``."""
    path = importer.replace(".", "/")
    path += "/__init__.py" if (ROOT / path).is_dir() else ".py"
    details = graph.get_import_details(importer=importer, imported=imported)
    if not details:
        return f"{path}: imports {imported}"
    first = min(details, key=lambda d: d["line_number"])
    return f"{path}:{first['line_number']}: {first['line_contents']}"


def _imports(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    return [
        (importer, imported)
        for importer in graph.modules
        if _is_own(importer)
        for imported in graph.find_modules_directly_imported_by(importer)
        if _is_own(imported)
    ]


def test_every_import_runs_down_or_stays_on_its_floor(graph: grimp.ImportGraph) -> None:
    upwards = sorted(
        f"{_where(graph, a, b)}  (floor {floor_of(a)} imports floor {floor_of(b)}: {b})"
        for a, b in _imports(graph)
        if floor_of(b) > floor_of(a)
    )
    assert upwards == [], "imports up a floor:\n" + "\n".join(upwards)


def test_the_ground_reads_no_floor_above_but_the_rules_words(graph: grimp.ImportGraph) -> None:
    """The ground imports nothing of qualifying, races, standings or the roof, even their pure
    rules, but the words listed (``GROUND_READS_ABOVE``)."""
    above = {
        (a, b)
        for a, b in _imports(graph)
        if a.split(".")[0] == "tournament" and b.split(".")[0] != "tournament"
    }
    unlisted = sorted(_where(graph, a, b) for a, b in above - GROUND_READS_ABOVE)
    assert unlisted == [], "the ground imports a floor above:\n" + "\n".join(unlisted)
    assert above >= GROUND_READS_ABOVE, "gone: remove it from GROUND_READS_ABOVE"


def _lines(package: str) -> int:
    return sum(
        len(path.read_text().splitlines())
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    )


def test_the_ground_holds_at_most_a_third_of_the_code() -> None:
    """``tournament/`` holds at most 35 % of the code's lines (the apps and the bench,
    migrations and tests aside)."""
    lines = {package: _lines(package) for package in (*PACKAGES, *TOOLS)}
    share = lines["tournament"] / sum(lines.values())
    assert share <= GROUND_SHARE, f"tournament/ holds {share:.0%} of the code: {lines}"


def test_pure_rules_import_no_django(graph: grimp.ImportGraph) -> None:
    pure = [m for m in graph.modules if _is_own(m) and floor_of(m) == 0]
    found = []
    for module in pure:
        path = ROOT / (module.replace(".", "/") + ".py")
        if not path.exists():
            path = ROOT / module.replace(".", "/") / "__init__.py"
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            found += [f"{module}: {n}" for n in names if n.split(".")[0] == "django"]
    assert found == []


def test_no_import_circle_between_files(graph: grimp.ImportGraph) -> None:
    sorter = graphlib.TopologicalSorter()
    for a, b in _imports(graph):
        sorter.add(a, b)
    try:
        sorter.prepare()
    except graphlib.CycleError as exc:
        pytest.fail(f"import circle: {' -> '.join(exc.args[1])}")


def _function_level_imports() -> set[tuple[str, str]]:
    found = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            module = module.removesuffix(".__init__")
            tree = ast.parse(path.read_text())
            for func in ast.walk(tree):
                if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                for node in ast.walk(func):
                    if isinstance(node, ast.ImportFrom) and node.module:
                        target = node.module
                    elif isinstance(node, ast.Import):
                        target = node.names[0].name
                    else:
                        continue
                    if target.split(".")[0] in PACKAGES:
                        found.add((module, target))
    return found


def test_no_import_hidden_in_a_function_but_the_start_up_hooks() -> None:
    assert _function_level_imports() == set(FUNCTION_LEVEL)


def test_no_module_over_600_lines() -> None:
    long = [
        f"{path.relative_to(ROOT)}: {count}"
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
        and (count := len(path.read_text().splitlines())) > MAX_LINES
    ]
    assert long == []


def test_every_game_module_lives_in_the_games_package() -> None:
    stray = [
        str(path.relative_to(ROOT))
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if path.name.startswith(("game_", "games_"))
        and (ROOT / "races" / "games") not in path.parents
    ]
    assert stray == []


def test_the_api_document_is_the_contract_s() -> None:
    """Operation ids, paths and schemas byte for byte as published: a change is deliberate
    (regenerate ``tests/api/snapshots/openapi_v1.json`` and say why)."""
    from paddock.api import api

    document = json.dumps(api.get_openapi_schema(path_prefix="/api/v1"), indent=1) + "\n"
    assert document == (ROOT / "tests/api/snapshots/openapi_v1.json").read_text()


def _folders() -> list[Path]:
    """Every folder of Python modules in the apps, but migrations (Django numbers them)."""
    return sorted(
        {
            path.parent
            for package in PACKAGES
            for path in (ROOT / package).rglob("*.py")
            if "migrations" not in path.parts
        }
    )


def _modules(folder: Path) -> list[str]:
    return sorted(path.stem for path in folder.glob("*.py"))


def family(module: str) -> str:
    """A module's family: its name's first word, singular (``result_views``, ``results`` and
    ``result_api`` are one family; ``table_views`` and ``tables`` another)."""
    return module.split("_")[0].removesuffix("s")


def test_family_is_the_first_word_of_the_name() -> None:
    assert {family(m) for m in ("result_views", "results", "result_api")} == {"result"}
    assert family("sheet_weather_box") == family("sheets") == "sheet"
    assert family("__init__") == "" and family("_ranking") == ""
    assert family("views") != family("table_views")


def test_no_folder_is_several_rooms() -> None:
    crowded = {
        str(folder.relative_to(ROOT)): len(modules)
        for folder in _folders()
        if len(modules := _modules(folder)) > MAX_MODULES
    }
    assert crowded == {}, f"more than {MAX_MODULES} modules: split by concern into packages"


def test_a_family_of_modules_is_a_package() -> None:
    families = {}
    for folder in _folders():
        if folder.parts[-2:] == ("management", "commands"):
            continue  # Django finds commands there only; their names are the CLI's contract
        by_family: dict[str, list[str]] = {}
        for module in _modules(folder):
            if family(module):
                by_family.setdefault(family(module), []).append(module)
        families |= {
            f"{folder.relative_to(ROOT)}: {name}": members
            for name, members in by_family.items()
            if len(members) >= 3
        }
    assert families == {}, "three modules with one prefix: make them a package named for it"


def tree_paths(text: str) -> set[str]:
    """The folders named in the first drawn tree of ``text``, as paths (``races/results/``)."""
    fence = text.index("```") + 3
    tree = text[fence : text.index("```", fence)]
    stack: list[str] = []
    paths = set()
    for line in tree.splitlines():
        match = re.match(r"^([│├└─ ]*?)([\w.]+(?:/[\w.]+)*/)(?:\s|$)", line)
        if not match:
            continue
        depth = len(match[1]) // 4
        stack[depth:] = [match[2]]
        paths.add("".join(stack))
    return paths


def test_tree_paths_read_a_drawn_tree() -> None:
    text = "```\na/     one\n│      more\n├── b/   two\n│   └── c/ three\n└── d/e/\nf/\n```"
    assert tree_paths(text) == {"a/", "a/b/", "a/b/c/", "a/d/e/", "f/"}


def test_the_architecture_opens_with_every_package() -> None:
    """ARCHITECTURE.md opens with the tree: every package of the apps, none that is gone."""
    named = tree_paths((ROOT / "ARCHITECTURE.md").read_text())
    packages = {
        str(folder.relative_to(ROOT)) + "/"
        for folder in _folders()
        if (folder / "__init__.py").exists() and "management" not in folder.parts
    }
    assert packages - named == set(), "add the package to ARCHITECTURE.md's tree"
    assert {path for path in named if not (ROOT / path).is_dir()} == set()
