"""The page as people meet it beyond one tab's game (Chromium via Selenium, ``browser.py``):
a page opened while an agent thinks, two pages of one game, the back button, a phone's width.
"""

from __future__ import annotations

import httpx
import pytest

from tabletop_envs.web.app import create_app
from tabletop_envs.web.config import ServeConfig
from tabletop_envs.web.sessions import Store
from tests.web.browser import chromium_session, need_browser, serve_in_thread, shot, until
from tests.web.helpers import play_out
from tests.web.test_web_browser import css, move_number, settle, state, text


@pytest.fixture(scope="module")
def store():
    return Store(idle_seconds=600, limit=50)


@pytest.fixture(scope="module")
def base_url(store):
    need_browser()
    yield from serve_in_thread(create_app(ServeConfig(), store))


@pytest.fixture(scope="module")
def driver(base_url):
    yield from chromium_session()


def new_game(base_url, env, params, seats, seed=3):
    """Make a game through the API; return its view (with every human seat's token)."""
    body = {"env": env, "params": params, "seats": seats, "seed": seed}
    answer = httpx.post(base_url + "/api/games", json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def page_of(base_url, view, seat=0):
    return f"{base_url}/?game={view['id']}&seat={seat}&token={view['tokens'][str(seat)]}"


def test_a_page_opened_while_an_agent_thinks_waits_for_its_move(driver, base_url, store):
    view = new_game(base_url, "iris_v0", {"board_size": 3}, ["human", "random"])
    auth = {"seat": 0, "token": view["tokens"]["0"]}
    move = {**auth, "action": view["moves"][0]["action"]}
    assert httpx.post(f"{base_url}/api/games/{view['id']}/move", json=move).status_code == 200
    session = store.game(view["id"])
    session.thinking = True  # the agent thinks, asked by a page that was then reloaded
    driver.get(page_of(base_url, view))
    until(lambda: state(driver) == "waiting", 10, "the page did not load")
    until(lambda: "is thinking" in text(driver, "turn"), 10, "no word of the thinking agent")
    assert text(driver, "game-error") == ""
    session.thinking = False  # (its answer would be played here; this one never came)
    assert settle(driver) == "your-turn"  # the page asks the agent itself, once it is free
    assert text(driver, "game-error") == "" and move_number(driver) > 1  # the agent's stones


def test_a_page_left_behind_by_another_page_does_not_play_on_what_it_no_longer_shows(
    driver, base_url
):
    view = new_game(base_url, "isis_osiris_v0", {}, ["human", "human"])
    gid = view["id"]
    driver.get(page_of(base_url, view))
    assert settle(driver) == "your-turn" and move_number(driver) == 0
    for seat, square in ((0, "stone f6"), (1, "stone f5")):  # played on the other pages
        body = {"seat": seat, "token": view["tokens"][str(seat)], "move": square}
        assert httpx.post(f"{base_url}/api/games/{gid}/move", json=body).status_code == 200
    css(driver, "#board .target.legal")[0].click()  # a1: empty, also in the game now
    message = until(lambda: text(driver, "game-error"), 10, "no word of the other pages")
    assert "moved on" in message, message
    shot(driver, "stale-page")
    assert move_number(driver) == 2 and state(driver) == "your-turn"  # the game as it is now
    seen = httpx.get(
        f"{base_url}/api/games/{gid}", params={"seat": 0, "token": view["tokens"]["0"]}
    )
    assert seen.json()["move_number"] == 2  # the click played nothing


def test_a_double_click_plays_one_move_without_an_error(driver, base_url):
    view = new_game(base_url, "isis_osiris_v0", {}, ["human", "human"])
    driver.get(page_of(base_url, view))
    assert settle(driver) == "your-turn"
    square = css(driver, "#board .target.legal")[3]
    driver.execute_script(  # two clicks before the first one's answer comes back
        "for (let i = 0; i < 2; i++) arguments[0].dispatchEvent(new MouseEvent('click'));", square
    )
    until(lambda: state(driver) == "waiting", 10, "the move was not played")
    assert move_number(driver) == 1 and text(driver, "game-error") == ""


def _focused(driver) -> str:
    """Return what has the keyboard's focus: "target", "choice", "button" or "other"."""
    return driver.execute_script(
        "const e = document.activeElement;"
        "if (e.classList.contains('target')) return 'target';"
        "if (e.closest('#chooser')) return 'choice';"
        "return e.closest('#buttons') ? 'button' : 'other';"
    )


@pytest.mark.parametrize("env", ["irk_v0", "iris_v0"])
def test_a_whole_game_is_played_with_the_keyboard(driver, base_url, env):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    params = {"irk_v0": {"table_size": 9}, "iris_v0": {"board_size": 3}}[env]
    view = new_game(base_url, env, params, ["human", "random"])
    driver.get(page_of(base_url, view))
    keys = ActionChains(driver)
    while settle(driver) == "your-turn":
        before = move_number(driver)
        for _ in range(60):  # Tab to the first legal place (or button)
            if _focused(driver) in ("target", "button"):
                break
            keys.send_keys(Keys.TAB).perform()
        assert _focused(driver) in ("target", "button")
        keys.send_keys(Keys.ENTER).perform()
        if driver.find_element("id", "chooser").is_displayed():
            assert _focused(driver) == "choice"  # a placement of several: the first choice
            keys.send_keys(Keys.ENTER).perform()
        until(lambda b=before: state(driver) and move_number(driver) > b, 10, "no move played")
    assert text(driver, "turn") == "Game over." and text(driver, "game-error") == ""


def test_back_returns_to_the_form_and_forward_to_the_game(driver, base_url):
    driver.get(base_url + "/")
    until(lambda: css(driver, "#env option"), 10, "the form did not load")
    css(driver, "#seats [name='seat-1']")[0].clear()
    css(driver, "#seats [name='seat-1']")[0].send_keys("random")
    driver.find_element("id", "start").click()
    assert settle(driver) == "your-turn"
    game_address = driver.current_url
    driver.back()
    until(lambda: driver.find_element("id", "setup").is_displayed(), 10, "back left the app")
    assert driver.current_url == base_url + "/"
    driver.forward()
    until(lambda: driver.find_element("id", "game").is_displayed(), 10, "forward: no game")
    assert settle(driver) == "your-turn" and driver.current_url == game_address
    driver.find_element("id", "new-game-button").click()  # the form, a step of its own
    assert driver.find_element("id", "setup").is_displayed()
    driver.back()
    until(lambda: driver.find_element("id", "game").is_displayed(), 10, "back: no game")
    assert settle(driver) == "your-turn" and driver.current_url == game_address


def test_a_seed_past_two_to_the_53_seeds_the_game_exactly(driver, base_url):
    driver.get(base_url + "/")
    until(lambda: css(driver, "#env option"), 10, "the form did not load")
    css(driver, "#seats [name='seat-1']")[0].clear()
    css(driver, "#seats [name='seat-1']")[0].send_keys("random")
    seed = 2**53 + 1  # a JavaScript number rounds it to 2**53
    driver.find_element("id", "seed").send_keys(str(seed))
    driver.find_element("id", "start").click()
    assert settle(driver) == "your-turn" and text(driver, "setup-error") == ""
    dealt = httpx.get(driver.find_element("id", "download").get_attribute("href")).json()
    same = new_game(base_url, "iris_v0", {"board_size": 5}, ["human", "random"], seed=seed)
    record = f"{base_url}/api/games/{same['id']}/record"  # Iris hides nothing: sent at any time
    assert httpx.get(record, params={"seat": 0, "token": same["tokens"]["0"]}).json() == dealt


def _sideways(driver) -> int:
    """Return how far the page scrolls sideways (0: it fits the window's width)."""
    return driver.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


@pytest.mark.parametrize("width", [1280, 390])
def test_the_form_and_a_four_player_result_fit_the_window(driver, base_url, width):
    driver.set_window_size(width, 900)
    try:
        driver.get(base_url + "/")
        until(lambda: css(driver, "#env option"), 10, "the form did not load")
        assert _sideways(driver) == 0
        view = new_game(
            base_url, "irk_v0", {"num_players": 4, "table_size": 11}, ["human"] + ["random"] * 3
        )
        with httpx.Client(base_url=base_url) as client:
            play_out(client, view, 0, view["tokens"]["0"])
        driver.get(page_of(base_url, view))
        until(lambda: state(driver) == "over", 10, "the finished game did not load")
        driver.execute_script("document.getElementById('result').scrollIntoView()")
        shot(driver, f"irk_v0-4-players-over-{width}")
        assert _sideways(driver) == 0
        table = driver.find_element("css selector", "#result table")
        assert table.is_displayed() and "player_3" in table.text
    finally:
        driver.set_window_size(1280, 900)


def test_a_page_that_lost_the_server_looks_again_and_shows_the_moves_made_meanwhile(
    driver, base_url
):
    """One failed look for the other seat's move (the connection dropped) used to end the
    page's looking: it never showed that move until reloaded. Now it says so and looks again."""
    view = new_game(base_url, "isis_osiris_v0", {}, ["human", "human"])
    gid = view["id"]
    driver.get(page_of(base_url, view))
    assert settle(driver) == "your-turn"
    css(driver, "#board .target.legal")[0].click()
    until(lambda: state(driver) == "waiting", 10, "the move was not played")
    offline = {"offline": True, "latency": 0, "throughput": 0}
    driver.set_network_conditions(**offline)
    try:
        message = until(lambda: text(driver, "game-error"), 10, "no word of the lost server")
        assert message.startswith("the server cannot be reached") and "looking again" in message
    finally:
        driver.delete_network_conditions()
    body = {"seat": 1, "token": view["tokens"]["1"], "move": "stone f5"}  # the other seat
    assert httpx.post(f"{base_url}/api/games/{gid}/move", json=body).status_code == 200
    until(lambda: state(driver) == "your-turn", 20, "the other seat's move never showed")
    assert move_number(driver) == 2 and text(driver, "game-error") == ""
