"""The docs site's built HTML keeps the structure its Markdown shows (``--strict`` cannot see it).

Python-Markdown nests a list only under 4 spaces of indentation and starts a list only after a
blank line: a sub-list indented by 2 or 3 spaces becomes more items of the outer list, and a list
right under a paragraph line becomes text of that paragraph, while the Markdown still reads
right. The site is built once per session with mkdocs into a temporary folder; every page's
lists (items, depth, first words) must be those its Markdown source indents.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

if os.environ.get("CI") == "true":
    import mkdocs  # noqa: F401  CI installs the docs extra: missing, it must fail, not skip
else:
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: The pages written in Markdown (the API pages are mkdocstrings' ``::: module`` directives).
PAGES = sorted(
    p.relative_to(DOCS)
    for p in DOCS.rglob("*.md")
    if not re.search(r"^::: ", p.read_text(), flags=re.MULTILINE)
)
RULES = [Path("rules") / name for name in ("iris.md", "isis_osiris.md", "irk.md")]

#: An item of a list: its depth (0: a top-level list) and its first words, as plain text.
Item = tuple[int, str]

_MARKER = re.compile(r"^( *)(?:[-*+]|\d+\.) +(\S.*)$")


def _words(text: str, n: int = 4) -> str:
    """Return the first ``n`` words of ``text`` without Markdown's emphasis and code marks."""
    plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text
    plain = re.sub(r"[*`]", "", plain)
    return " ".join(plain.split()[:n])


def source_lists(markdown: str) -> int:
    """Return how many top-level lists a Markdown page has (see :func:`source_outline`)."""
    return len(_source_items(markdown)[1])


def source_outline(markdown: str) -> list[Item]:
    """Return the list items of a Markdown page as its author indented them.

    An item deeper than the item above it is nested in it (whatever the indentation, 2 spaces
    as 4); a line at column 0 that is no item ends the lists; fenced code is skipped.
    """
    return _source_items(markdown)[0]


def _source_items(markdown: str) -> tuple[list[Item], list[int]]:
    """Return the items of :func:`source_outline` and the index of each top-level list's first."""
    items: list[tuple[int, list[str]]] = []  # depth, the lines of the item's first paragraph
    starts: list[int] = []
    indents: list[int] = []  # the marker indentation of the open lists, outermost first
    fenced = first = False  # in fenced code; in the first paragraph of the last item
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced or line.lstrip().startswith("```") or not line.strip():
            first = False
            continue
        match = _MARKER.match(line)
        if match is None:
            if not line.startswith(" "):
                indents.clear()  # a paragraph, heading, table or picture: the lists end
                first = False
            elif first:
                items[-1][1].append(line)
            continue
        indent = len(match.group(1))
        if not indents:
            starts.append(len(items))
        while indents and indents[-1] >= indent:
            indents.pop()
        items.append((len(indents), [match.group(2)]))
        indents.append(indent)
        first = True
    return [(depth, _words(" ".join(lines))) for depth, lines in items], starts


class _Outline(HTMLParser):
    """The list items in a built page's article: depth and first words of each ``<li>``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.items: list[Item] = []
        self.swallowed: list[str] = []  # paragraphs holding a line that starts like a list item
        self._article = 0  # > 0 inside the page's own content (not the navigation's lists)
        self._lists = 0
        self.lists = 0  # top-level lists
        self._text: list[str] | None = None  # the text of the open <li> up to its first block
        self._paragraph: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "article":
            self._article += 1
        if not self._article:
            return
        if tag in ("ul", "ol"):
            self._close_item()
            self.lists += self._lists == 0
            self._lists += 1
        elif tag == "li":
            self._close_item()
            self._text = []
        elif tag in ("p", "table", "pre", "div") and "".join(self._text or ()).strip():
            self._close_item()  # the item's first block ends its first words
        if tag == "p":
            self._paragraph = []

    def handle_endtag(self, tag: str) -> None:
        if not self._article:
            return
        if tag == "article":
            self._article -= 1
        elif tag in ("ul", "ol"):
            self._close_item()
            self._lists -= 1
        elif tag == "li":
            self._close_item()
        elif tag == "p" and self._paragraph is not None:
            text = "".join(self._paragraph)
            if re.search(r"\n *(?:[-*+]|\d+\.) ", text):
                self.swallowed.append(_words(text, 12))
            self._paragraph = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)
        if self._paragraph is not None:
            self._paragraph.append(data)

    def _close_item(self) -> None:
        if self._text is not None:
            self.items.append((self._lists - 1, _words("".join(self._text))))
            self._text = None


def built_outline(html: str) -> _Outline:
    """Return the outline of a built page (its list items, its swallowed lists)."""
    parser = _Outline()
    parser.feed(html)
    parser.close()
    return parser


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the docs site once per session into a temporary folder (``--strict``: a broken
    link or anchor fails here too, not only in CI's build; not ``--quiet``, which hides the
    warnings ``--strict`` counts); return the folder."""
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def _built(site: Path, page: Path) -> str:
    """Return the HTML mkdocs built for the Markdown page ``page`` (relative to docs/)."""
    folder = page.with_suffix("") if page.stem != "index" else page.parent
    return (site / folder / "index.html").read_text()


def test_source_outline_reads_nesting_by_indentation() -> None:
    text = "Intro:\n\n1. one\n2. two:\n   - a\n   - b\n3. three\n\nText\n- x\n  - y\n"
    assert source_outline(text) == [
        (0, "one"), (0, "two:"), (1, "a"), (1, "b"), (0, "three"), (0, "x"), (1, "y"),
    ]  # fmt: skip


def test_built_outline_sees_a_flattened_and_a_swallowed_list() -> None:
    flat = "<article><ol><li>one</li><li>two:</li><li>a</li></ol></article>"
    assert built_outline(flat).items == [(0, "one"), (0, "two:"), (0, "a")]
    nested = "<article><ol><li>two:<ul><li><p>a</p></li></ul></li></ol></article>"
    assert built_outline(nested).items == [(0, "two:"), (1, "a")]
    swallowed = "<article><p>The values add up to 0.\n- Per player, in its color</p></article>"
    assert built_outline(swallowed).swallowed == [
        "The values add up to 0. - Per player, in its color"
    ]


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_built_lists_nest_as_the_markdown_does(site: Path, page: Path) -> None:
    expected = source_outline((DOCS / page).read_text())
    built = built_outline(_built(site, page))
    assert built.swallowed == [], f"{page}: a list ran into a paragraph (no blank line before)"
    assert built.items == expected, f"{page}: the built lists differ from the Markdown's nesting"
    lists = source_lists((DOCS / page).read_text())
    assert built.lists == lists, f"{page}: a block meant inside a list item split the list"


def test_rules_pages_keep_their_nested_rules(site: Path) -> None:
    """The three lists issue 23 saw flattened, by name: each sub-rule stays under its rule."""
    iris = built_outline(_built(site, RULES[0])).items
    assert (0, "Every later turn, starting") in iris
    turn = iris.index((0, "Every later turn, starting"))
    assert [depth for depth, _ in iris[turn + 1 : turn + 5]] == [1, 1, 1, 0]
    assert iris[turn + 4] == (0, "Passing. Instead of placing")
    irk = built_outline(_built(site, RULES[2])).items
    covering = irk.index((0, "Covering. For every occupied"))
    assert [depth for depth, _ in irk[covering + 1 : covering + 6]] == [1, 1, 1, 1, 0]
    isis = built_outline(_built(site, RULES[1]))
    assert (0, "Per player, in its") in isis.items and not isis.swallowed


def test_every_page_loads_the_stylesheet_that_fits_wide_tables(site: Path) -> None:
    """The theme's 5rem minimum per header cell pushed a row of 9 tile values past the right
    edge at 1280 px; docs/stylesheets/extra.css lets cells shrink and text wrap."""
    css = (site / "stylesheets" / "extra.css").read_text()
    assert re.search(r"table:not\(\[class\]\) th \{\s*min-width: 0;", css)
    for page in [*RULES, Path("results.md")]:
        assert 'href="../stylesheets/extra.css"' in _built(site, page).replace("../../", "../")
