"""The real browser of the end-to-end tests: Debian's Chromium driven by Selenium.

Nothing is downloaded: Selenium's ``Service`` is pointed at the system's chromedriver. The tests
skip when the browser is missing, except under ``CI=true``, where they fail instead (CI installs
it: ``.ci/run``). Screenshots go to ``$TABLETOP_WEB_SCREENSHOTS`` (default: a folder under the
system's temporary directory).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("TABLETOP_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("TABLETOP_CHROMEDRIVER", "/usr/bin/chromedriver"))
SCREENSHOTS = Path(
    os.environ.get("TABLETOP_WEB_SCREENSHOTS", Path(tempfile.gettempdir()) / "tabletop_web_shots")
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
)


def missing() -> str | None:
    """Return what the browser tests lack, or None."""
    for module in ("selenium", "uvicorn"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install -e '.[webtest]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not path.exists():
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    return None


def need_browser() -> None:
    """Skip the test without a browser; under CI=true, fail it."""
    reason = missing()
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true, so the browser tests must run, but {reason}")
    pytest.skip(reason)


def start_chromium(user_data: Path) -> Any:
    """Return a Selenium driver of a fresh headless Chromium."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={user_data}")
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


def chromium_session() -> Iterator[Any]:
    """Yield a Chromium driver with a profile of its own, quit (and the profile removed) after:
    the body of a module-scoped ``driver`` fixture."""
    with tempfile.TemporaryDirectory(prefix="tabletop-chromium-") as profile:
        chromium = start_chromium(Path(profile))
        try:
            yield chromium
        finally:
            chromium.quit()


def serve_in_thread(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free localhost port in a thread; yield its base URL."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    until(lambda: server.started, 10, "uvicorn did not start")
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def until(condition: Callable[[], Any], timeout: float, message: str) -> Any:
    """Return ``condition()``'s first true value, polled for up to ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout} s: {message}")
        time.sleep(0.02)


def shot(driver: Any, name: str) -> Path:
    """Save a screenshot of the page as ``name``.png; return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path
