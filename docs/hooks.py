"""mkdocs hook: show the Sphinx roles of the docstrings (``:func:`x```) as plain code.

The code's docstrings use reStructuredText roles; mkdocstrings renders the role's name as text
in front of the code (":func:make"). This drops the role name and keeps the code, shortened to
its last component after a ``~`` as Sphinx does (``:class:`~a.b.C``` shows ``C``).
"""

from __future__ import annotations

import re
from typing import Any

_ROLES = r":(?:func|class|meth|mod|attr|data|exc|obj):"
_SHORT = re.compile(_ROLES + r"<code>~(?:[\w]+\.)*([\w]+)</code>")
_ROLE = re.compile(_ROLES + r"(<code>)")


def on_page_content(html: str, **kwargs: Any) -> str:
    """Return the page's HTML with every Sphinx role name removed before its code."""
    return _ROLE.sub(r"\1", _SHORT.sub(r"<code>\1</code>", html))
