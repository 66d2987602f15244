"""End to end in a real headless browser (Chromium via Selenium, ``browser.py``): a person
plays a whole game of every env by clicking on the board, two agents are watched with play,
pause and step, and a record file is stepped through. Each test leaves screenshots.
"""

from __future__ import annotations

import json
import re
import time

import httpx
import pytest

from tabletop_envs.replay import GameRecord
from tabletop_envs.watch import watch
from tabletop_envs.web.app import create_app
from tabletop_envs.web.config import ServeConfig
from tests.web.browser import chromium_session, need_browser, serve_in_thread, shot, until

#: What the person plays in each env: small games against random (seconds each).
GAMES = {
    "iris_v0": {"board_size": "3"},
    "isis_osiris_v0": {},
    "irk_v0": {"table_size": "9"},
}


@pytest.fixture(scope="module")
def base_url():
    need_browser()
    yield from serve_in_thread(create_app(ServeConfig()))


@pytest.fixture(scope="module")
def driver(base_url):
    yield from chromium_session()


def css(driver, selector):
    return driver.find_elements("css selector", selector)


def text(driver, element_id):
    return driver.find_element("id", element_id).text


def state(driver):
    """Return the page's state once it is idle: "your-turn", "over" or "waiting"."""
    return driver.execute_script(
        "return document.body.dataset.busy ? null : document.body.dataset.state || null"
    )


def move_number(driver):
    return int(driver.find_element("id", "board").get_attribute("data-move"))


def settle(driver, timeout=15):
    """Wait until the person is to move or the game is over; return which."""
    return until(
        lambda: state(driver) in ("your-turn", "over") and state(driver),
        timeout,
        f"the page never came back to the person: {text(driver, 'turn')!r}",
    )


def new_game(driver, base_url, env, params, seats):
    """Fill in the new-game form and start."""
    driver.get(base_url + "/")
    until(lambda: css(driver, "#env option"), 10, "the form did not load")
    driver.find_element("css selector", f"#env option[value='{env}']").click()
    for name, value in params.items():
        field = driver.find_element("css selector", f"#params [name='{name}']")
        field.clear()
        field.send_keys(value)
    driver.find_element("id", "seed").click()  # leaves the field: the server counts the seats
    until(
        lambda: driver.find_element("id", "new-game").get_attribute("data-checking") is None,
        10,
        "the parameters were not checked",
    )
    assert text(driver, "setup-error") == ""
    for seat, spec in enumerate(seats):
        field = driver.find_element("css selector", f"#seats [name='seat-{seat}']")
        field.clear()
        field.send_keys(spec)
    driver.find_element("id", "seed").send_keys("7")
    driver.find_element("id", "start").click()
    until(lambda: driver.find_element("id", "game").is_displayed(), 10, "no game started")


def click_a_move(driver, chooser_shot=None):
    """Click the first highlighted place (and the first choice it offers), else a button.

    When the place offers several moves (an Irk cell several placements cover), point at the
    first choice (its cells are previewed) and save ``chooser_shot`` if given.
    """
    before = move_number(driver)
    legal = css(driver, "#board .target.legal")
    if legal:
        legal[0].click()
        chooser = driver.find_element("id", "chooser")
        if chooser.is_displayed():
            from selenium.webdriver.common.action_chains import ActionChains

            first = css(driver, "#chooser button[data-action]")[0]
            ActionChains(driver).move_to_element(first).perform()
            assert css(driver, "#board .preview"), "pointing at a choice previews its cells"
            if chooser_shot:
                shot(driver, chooser_shot)
            first.click()
    else:
        css(driver, "#buttons button")[0].click()
    until(lambda: state(driver) and move_number(driver) > before, 10, "the move was not played")


def click_an_illegal_place(driver):
    """Click a place the rules refuse now; return the page's explanation (nothing changes)."""
    before = move_number(driver)
    css(driver, "#board .target.illegal")[0].click()
    message = until(lambda: text(driver, "game-error"), 10, "no explanation shown")
    assert move_number(driver) == before and state(driver) == "your-turn"
    return message


@pytest.mark.parametrize("env", sorted(GAMES))
def test_a_person_plays_a_whole_game_by_clicking(driver, base_url, env):
    started = time.monotonic()
    new_game(driver, base_url, env, GAMES[env], ["human", "random"])
    explained = None
    clicks = 0
    while settle(driver) == "your-turn":
        if explained is None and css(driver, "#board .target.illegal"):
            explained = click_an_illegal_place(driver)
            shot(driver, f"{env}-illegal")
        if clicks == 3:
            shot(driver, f"{env}-playing")
        click_a_move(driver, chooser_shot=f"{env}-chooser")
        clicks += 1
        assert text(driver, "game-error") == ""  # a legal click clears the explanation
    assert explained and explained.startswith("illegal move "), explained
    result = driver.find_element("id", "result")
    assert result.is_displayed() and "game over" in result.text
    assert text(driver, "turn") == "Game over."
    last = css(driver, "#history li")[-1].text
    assert last.startswith("player_")
    download = driver.find_element("id", "download")
    record = GameRecord.from_json(httpx.get(download.get_attribute("href")).text)
    assert record.env == env and record.agents == ("human", "random")
    shot(driver, f"{env}-over")
    assert clicks >= 3 and time.monotonic() - started < 30


def test_opening_an_env_by_its_address_plays_against_the_expert(driver, base_url):
    driver.get(base_url + "/?env=irk_v0")
    assert settle(driver) == "your-turn"
    seats = [li.text for li in css(driver, "#seat-list li")]
    assert seats == ["player_0: you", "player_1: expert"]
    assert "Click a tile of your hand" in text(driver, "hint")
    click_a_move(driver)  # choose a tile: the expert then chooses, and so on
    assert settle(driver) == "your-turn"
    shot(driver, "irk_v0-expert")
    played = move_number(driver)
    assert "game=" in driver.current_url and "token=" in driver.current_url
    driver.refresh()  # the address is the game's page: a reload comes back to it
    assert settle(driver) == "your-turn" and move_number(driver) == played
    driver.get(base_url + "/?env=chess_v0")
    message = until(lambda: text(driver, "setup-error"), 10, "no error for an unknown env")
    assert "unknown env 'chess_v0'" in message
    assert driver.find_element("id", "setup").is_displayed()


def test_watching_two_agents_with_play_pause_and_step(driver, base_url):
    new_game(driver, base_url, "isis_osiris_v0", {}, ["random", "greedy"])
    controls = driver.find_element("id", "watch-controls")
    assert controls.is_displayed() and move_number(driver) == 0
    driver.find_element("id", "step").click()
    until(lambda: move_number(driver) == 1, 10, "step played no move")
    driver.find_element("css selector", "#speed option[value='0']").click()
    driver.find_element("id", "play").click()
    until(lambda: move_number(driver) >= 6, 10, "play did not go on")
    driver.find_element("id", "pause").click()
    until(lambda: state(driver), 10, "the last move did not come back")
    paused = move_number(driver)
    time.sleep(0.5)
    assert move_number(driver) == paused  # paused: no move by itself
    shot(driver, "isis_osiris_v0-watch")
    driver.find_element("id", "step").click()
    until(lambda: move_number(driver) == paused + 1, 10, "step after pause")
    driver.find_element("id", "play").click()
    until(lambda: state(driver) == "over", 30, "the agents' game did not end")
    assert "game over: scores" in text(driver, "result")
    driver.find_element("id", "to-replay").click()
    until(lambda: driver.find_element("id", "replay").is_displayed(), 10, "no replay")
    assert re.fullmatch(
        r"isis_osiris_v0 seed \d+: random vs greedy", text(driver, "replay-caption")
    )


def test_stepping_through_a_record_file(driver, base_url, tmp_path):
    record = watch("irk_v0", ["planner", "random"], seed=3, env_kwargs={"table_size": 9})
    path = tmp_path / "irk-game.json"
    record.save(path)
    driver.get(base_url + "/")
    until(lambda: css(driver, "#env option"), 10, "the page did not load")
    driver.find_element("id", "record-file").send_keys(str(path))
    until(lambda: driver.find_element("id", "replay").is_displayed(), 10, "no replay")
    board = driver.find_element("id", "replay-board")
    assert board.get_attribute("data-position") == "0"
    for k in (1, 2, 3):
        driver.find_element("id", "forward").click()
        until(lambda k=k: board.get_attribute("data-position") == str(k), 10, "forward")
    assert text(driver, "replay-caption").startswith("move 3: P")
    driver.find_element("id", "back").click()
    until(lambda: board.get_attribute("data-position") == "2", 10, "back")
    shot(driver, "irk_v0-replay")
    driver.find_element("id", "last").click()
    last = str(len(record.actions))
    until(lambda: board.get_attribute("data-position") == last, 10, "last")
    assert "game over" in text(driver, "replay-result")
    assert text(driver, "replay-position") == f"position {last} of {last}"
    shot(driver, "irk_v0-replay-end")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "nonsense"}))
    driver.find_element("id", "replay-new").click()
    driver.find_element("id", "record-file").send_keys(str(bad))
    message = until(lambda: text(driver, "record-error"), 10, "no error for a bad record")
    assert message.startswith("not a valid game record")


def test_a_second_person_plays_from_the_link_to_their_seat(driver, base_url):
    new_game(driver, base_url, "iris_v0", GAMES["iris_v0"], ["human", "human"])
    assert settle(driver) == "your-turn"
    link = driver.find_element("css selector", "#other-seats a")
    assert link.text == "open player_1's page"
    second_page = link.get_attribute("href")
    click_a_move(driver)  # player_0's opening stone: then it is player_1's turn
    assert text(driver, "turn") == "Waiting for player_1 (another page)."
    driver.get(second_page)
    assert settle(driver) == "your-turn"
    assert [li.text for li in css(driver, "#seat-list li")] == [
        "player_0: human",
        "player_1: you",
    ]
    click_a_move(driver)  # the first of player_1's two stones
    assert settle(driver) == "your-turn"  # and the second
    click_a_move(driver)
    until(lambda: state(driver) == "waiting", 10, "player_1's turn did not end")
    assert text(driver, "turn") == "Waiting for player_0 (another page)."


def test_iris_shows_the_cell_a_colored_first_stone_forces(driver, base_url):
    from selenium.webdriver.common.action_chains import ActionChains

    new_game(driver, base_url, "iris_v0", {"board_size": "4"}, ["human", "random"])
    settle(driver)
    click_a_move(driver)  # Black's opening stone; White replies; Black's first stone now
    assert settle(driver) == "your-turn"
    colored = css(driver, "#board .target.legal[data-preview]")
    assert colored, "every empty colored cell previews its opposite"
    ActionChains(driver).move_to_element(colored[0]).perform()
    assert len(css(driver, "#board .preview")) == 2  # the cell pointed at and its opposite
    shot(driver, "iris_v0-forced-preview")
    before = move_number(driver)
    colored[0].click()
    until(lambda: state(driver) and move_number(driver) == before + 1, 10, "no first stone")
    assert settle(driver) == "your-turn"
    assert len(css(driver, "#board .target.legal")) == 1  # the forced opposite cell, alone
    assert text(driver, "hint") == "Click a cell for your stone."
    shot(driver, "iris_v0-forced")
