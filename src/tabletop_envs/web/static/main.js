// The page: the new-game form, a game, or a record being stepped through.
//   /?env=NAME                       a new game of NAME with its default seats
//   /?game=ID&seat=S&token=T         seat S's page of a game (links given to other seats)

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

async function startGame(request) {
  const view = await post("/api/games", request);
  game.open(view, view.tokens);
  showSection("game");
  history.replaceState(null, "", "/");
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
    $("setup-error").textContent = err.message;
    if (query.has("env") && !form.envs.has(query.get("env"))) form.envSelect.selectedIndex = 0;
    form.showEnv();
    $("setup-error").textContent = err.message;
  }
}

main().catch((err) => { $("setup-error").textContent = err.message; });
