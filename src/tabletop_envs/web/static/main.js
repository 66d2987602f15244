// The page: the new-game form, a game, or a record being stepped through.
//   /?env=NAME                       a new game of NAME with its default seats
//   /?game=ID&seat=S&token=T         seat S's page of a game (links given to other seats; the
//                                    address of a game's page, so a reload comes back to it)

import { get, post, seatQuery } from "./api.js";
import { GamePage } from "./game.js";
import { ReplayPage } from "./replay.js";
import { SetupForm } from "./setup.js";

const $ = (id) => document.getElementById(id);

function showSection(name) {
  for (const id of ["setup", "game", "replay"]) $(id).hidden = id !== name;
}

const replay = new ReplayPage();
const game = new GamePage((view) => {
  game.stop();
  replay.open(view);
  showSection("replay");
});

// The address of the page of `view`'s game as seen by `seat` (a reload comes back to it).
function gameAddress(view, seat, token) {
  const query = seatQuery(seat, token);
  return `/?game=${view.id}${query ? "&" + query.slice(1) : ""}`;
}

async function startGame(request) {
  const view = await post("/api/games", request);
  game.open(view, view.tokens);
  showSection("game");
  history.replaceState(null, "", gameAddress(view, game.seat, view.tokens[game.seat]));
}

async function openRecord(file) {
  $("record-error").textContent = "";
  try {
    const view = await post("/api/replays", await file.text());
    replay.open(view);
    showSection("replay");
  } catch (err) {
    $("record-error").textContent = err.message;
  }
}

function newGame() {
  game.stop();
  replay.stopPlaying();
  showSection("setup");
  history.replaceState(null, "", "/");
}

async function main() {
  $("new-game-button").addEventListener("click", newGame);
  $("replay-new").addEventListener("click", newGame);
  $("record-file").addEventListener("change", (e) => {
    if (e.target.files.length) openRecord(e.target.files[0]);
    e.target.value = "";
  });
  const form = new SetupForm(await get("/api/envs"), startGame);
  const query = new URLSearchParams(location.search);
  try {
    if (query.has("env")) {
      form.envSelect.value = query.get("env");
      await startGame({ env: query.get("env") });
    } else if (query.has("game")) {
      const seat = query.has("seat") ? Number(query.get("seat")) : null;
      const token = query.get("token");
      const view = await get(`/api/games/${query.get("game")}${seatQuery(seat, token)}`);
      game.open(view, seat === null ? {} : { [seat]: token });
      showSection("game");
    }
  } catch (err) {
    if (query.has("env") && !form.envs.has(query.get("env"))) form.envSelect.selectedIndex = 0;
    form.showEnv();
    $("setup-error").textContent = err.message;
    history.replaceState(null, "", "/");
  }
}

main().catch((err) => { $("setup-error").textContent = err.message; });
