// The page: the new-game form, a game, or a record being stepped through.
//   /?env=NAME                       a new game of NAME with its default seats
//   /?game=ID&seat=S&token=T         seat S's page of a game (links given to other seats; the
//                                    address of a game's page, so a reload comes back to it)
// Each section the person opens is a step of the browser's history: Back leaves a game (or a
// record) for the page it was opened from, Forward comes back to it.

import { get, post, seatQuery } from "./api.js";
import { GamePage } from "./game.js";
import { ReplayPage } from "./replay.js";
import { SetupForm } from "./setup.js";

const $ = (id) => document.getElementById(id);

function showSection(name) {
  for (const id of ["setup", "game", "replay"]) $(id).hidden = id !== name;
}

const replay = new ReplayPage();
const game = new GamePage((view) => openReplay(view));

// Step through the record of `view` (same address: a history step of its own).
function openReplay(view) {
  game.stop();
  replay.open(view);
  showSection("replay");
  history.pushState({ replay: true }, "", location.href);
}

// The address of the page of `view`'s game as seen by `seat` (a reload comes back to it).
function gameAddress(view, seat, token) {
  const query = seatQuery(seat, token);
  return `/?game=${view.id}${query ? "&" + query.slice(1) : ""}`;
}

// Start a game; `step`: a history step of its own (from the form), else in place of /?env=.
async function startGame(request, step = false) {
  const view = await post("/api/games", request);
  game.open(view, view.tokens);
  showSection("game");
  const address = gameAddress(view, game.seat, view.tokens[game.seat]);
  if (step) history.pushState(null, "", address);
  else history.replaceState(null, "", address);
}

// Open the game of a /?game= address.
async function openGame(query) {
  const seat = query.has("seat") ? Number(query.get("seat")) : null;
  const token = query.get("token");
  const view = await get(`/api/games/${query.get("game")}${seatQuery(seat, token)}`);
  game.open(view, seat === null ? {} : { [seat]: token });
  showSection("game");
}

async function openRecord(file) {
  $("record-error").textContent = "";
  try {
    openReplay(await post("/api/replays", await file.text()));
  } catch (err) {
    $("record-error").textContent = err.message;
  }
}

function showForm() {
  game.stop();
  replay.stopPlaying();
  showSection("setup");
}

function newGame() {
  showForm();
  history.pushState(null, "", "/");
}

// Back or Forward: show what the address (and the step) names.
async function revisit(event) {
  $("setup-error").textContent = "";
  const query = new URLSearchParams(location.search);
  if (event.state?.replay && replay.view) {
    game.stop();
    showSection("replay");
  } else if (query.has("game")) {
    replay.stopPlaying();
    await openGame(query).catch((err) => {
      showForm();
      $("setup-error").textContent = err.message;
    });
  } else {
    showForm();
  }
}

async function main() {
  $("new-game-button").addEventListener("click", newGame);
  $("replay-new").addEventListener("click", newGame);
  $("record-file").addEventListener("change", (e) => {
    if (e.target.files.length) openRecord(e.target.files[0]);
    e.target.value = "";
  });
  window.addEventListener("popstate", revisit);
  const form = new SetupForm(await get("/api/envs"), (request) => startGame(request, true));
  const query = new URLSearchParams(location.search);
  try {
    if (query.has("env")) {
      form.envSelect.value = query.get("env");
      await startGame({ env: query.get("env") });
    } else if (query.has("game")) {
      await openGame(query);
    }
  } catch (err) {
    if (query.has("env") && !form.envs.has(query.get("env"))) form.envSelect.selectedIndex = 0;
    form.showEnv();
    $("setup-error").textContent = err.message;
    history.replaceState(null, "", "/");
  }
}

main().catch((err) => { $("setup-error").textContent = err.message; });
