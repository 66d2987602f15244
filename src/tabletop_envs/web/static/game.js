// One game on the page: the seat's view from the server, moves by clicking, agents' moves
// asked for one at a time (a game between agents: play, pause, step), the result and record.

import { get, post, seatQuery } from "./api.js";
import { renderBoard } from "./board.js";
import { showResult } from "./result.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 1000;
// After a look that failed for want of the server (no answer, or a fault of its own): the wait
// before the next look, doubled after each failure up to the most.
const RETRY_MS = 2000;
const MOST_RETRY_MS = 30000;

export class GamePage {
  constructor(onReplay) {
    this.onReplay = onReplay;
    this.view = null;
    this.tokens = {};
    this.seat = null;
    this.playing = false;
    this.busy = false;
    this.moving = false;
    this.timer = null;
    this.retryMs = RETRY_MS;
    $("play").addEventListener("click", () => this.setPlaying(true));
    $("pause").addEventListener("click", () => this.setPlaying(false));
    $("step").addEventListener("click", () => this.agentMove());
    $("to-replay").addEventListener("click", () => this.replay());
    // back to this tab: another page of the game may have played meanwhile
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && this.view && !this.busy) this.refresh();
    });
  }

  // Show a game just made (`view` holds the tokens of its human seats) or opened by a link.
  open(view, tokens) {
    this.tokens = tokens || {};
    const seats = Object.keys(this.tokens).map(Number).sort((a, b) => a - b);
    this.seat = seats.length ? seats[0] : null;
    this.stop();
    this.setPlaying(false);
    this.show(view);
    this.showSeatLinks();
  }

  query() {
    return seatQuery(this.seat, this.tokens[this.seat]);
  }

  auth() {
    return this.seat === null ? {} : { seat: this.seat, token: this.tokens[this.seat] };
  }

  show(view) {
    this.view = view;
    // what the page is doing, for people (styles) and for the browser tests alike
    document.body.dataset.state = view.over ? "over" : view.your_turn ? "your-turn" : "waiting";
    $("board").dataset.move = view.move_number;
    $("game-title").textContent = view.env;
    $("seat-list").replaceChildren(...view.seats.map((s) => this.seatItem(s, view)));
    $("turn").textContent = this.turnText(view);
    const last = view.history[view.history.length - 1];
    $("last-move").textContent = last ? `Last move: player_${last.seat} ${last.text}` : "";
    $("hint").textContent = view.your_turn ? this.hint(view) : "";
    renderBoard($("board"), $("chooser"), view, (action) => this.move({ action }));
    $("buttons").replaceChildren(...(view.your_turn ? view.buttons : []).map((m) => this.button(m)));
    $("history").replaceChildren(...view.history.map((m) => {
      const li = document.createElement("li");
      li.textContent = `player_${m.seat} ${m.text}`;
      return li;
    }));
    $("history").lastElementChild?.scrollIntoView({ block: "nearest" });
    showResult($("result"), view.result, view.seats);
    const download = $("download");
    download.hidden = !view.record;
    download.href = `/api/games/${view.id}/record${this.query()}`;
    $("to-replay").hidden = !view.record;
    $("watch-controls").hidden = view.seats.some((s) => s.human);
    $("step").disabled = !view.agent_to_move || this.playing;
    if (view.over) this.setPlaying(false);
    this.schedule();
  }

  seatItem(seat, view) {
    const li = document.createElement("li");
    const who = seat.human ? (seat.seat === this.seat ? "you" : "human") : seat.agent;
    li.textContent = `player_${seat.seat}: ${who}`;
    if (seat.seat === view.to_move) li.className = "to-move";
    return li;
  }

  turnText(view) {
    if (view.over) return "Game over.";
    const mover = view.seats[view.to_move];
    if (view.your_turn) return `Your move (player_${view.to_move}).`;
    if (mover.human) return `Waiting for player_${view.to_move} (another page).`;
    return this.busy || view.thinking
      ? `player_${view.to_move} (${mover.agent}) is thinking…`
      : `player_${view.to_move} (${mover.agent}) to move.`;
  }

  hint(view) {
    const groups = [...new Set(view.targets.filter((t) => t.legal).map((t) => t.group))];
    const click = groups.length ? `Click ${groups.join(" or ")}` : "";
    const names = view.buttons.map((b) => b.label).join(" or ");
    if (click && names) return `${click}, or ${names}.`;
    return click ? `${click}.` : `Play ${names}.`;
  }

  button(move) {
    const b = document.createElement("button");
    b.textContent = move.label;
    b.dataset.action = move.action;
    b.addEventListener("click", () => this.move({ action: move.action }));
    return b;
  }

  // Play a move chosen on the position shown (refused if another page has moved the game on:
  // then the page shows the game as it stands, with the server's word of it). A click while
  // a move is on its way (a double click) is not sent.
  async move(body) {
    if (this.moving) return;
    this.moving = true;
    const path = `/api/games/${this.view.id}/move`;
    const sent = { ...this.auth(), ...body, move_number: this.view.move_number };
    try {
      const failed = await this.request(() => post(path, sent));
      if (failed?.status === 409) await this.refresh();
      if (failed) $("game-error").textContent = failed.message;
    } finally {
      this.moving = false;
    }
  }

  async agentMove() {
    if (this.busy || !this.view?.agent_to_move) return;
    this.busy = true;
    $("turn").textContent = this.turnText(this.view);
    let failed = null;
    try {
      failed = await this.request(() => post(`/api/games/${this.view.id}/step`, this.auth()));
    } finally {
      this.busy = false;
    }
    if (this.view) $("turn").textContent = this.turnText(this.view);
    if (!failed) {
      this.schedule(); // the same agent may move again (Isis & Osiris: reveal, place)
    } else if (failed.status === 409) {
      // another page of this game asked first (its agent is thinking): wait for that move
      this.timer = setTimeout(() => this.refresh(), POLL_MS);
    } else {
      $("game-error").textContent = failed.message;
      this.setPlaying(false, false); // an agent that failed is not asked again by itself
    }
  }

  // Send `call` and show the view it answers; return null, or the error it failed with.
  async request(call) {
    document.body.dataset.busy = "1";
    try {
      const view = await call();
      $("game-error").textContent = "";
      this.show(view);
      return null;
    } catch (err) {
      return err;
    } finally {
      delete document.body.dataset.busy;
    }
  }

  // What happens next by itself: an agent's reply in a game with a person, the next move of a
  // game between agents while it plays, or a look for another page's move (or for the move of
  // an agent that another page asked).
  schedule() {
    clearTimeout(this.timer);
    const view = this.view;
    if (!view || view.over || this.busy) return;
    const watching = !view.seats.some((s) => s.human);
    // an agent asked by another page (or before a reload) is thinking: wait for its move
    const ask = view.agent_to_move && !view.thinking;
    if (ask && !watching) {
      this.timer = setTimeout(() => this.agentMove(), 0);
    } else if (ask && this.playing) {
      this.timer = setTimeout(() => this.agentMove(), Number($("speed").value));
    } else if (!view.your_turn && !ask) {
      this.timer = setTimeout(() => this.refresh(), POLL_MS);
    }
  }

  async refresh() {
    if (!this.view) return;
    const failed = await this.request(() => get(`/api/games/${this.view.id}${this.query()}`));
    if (!failed) {
      this.retryMs = RETRY_MS;
      return;
    }
    $("game-error").textContent = failed.message;
    if (!failed.status || failed.status >= 500) {
      // the connection or the server may come back: look again, ever less often
      $("game-error").textContent += ` (looking again in ${this.retryMs / 1000} s)`;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.refresh(), this.retryMs);
      this.retryMs = Math.min(2 * this.retryMs, MOST_RETRY_MS);
    }
  }

  setPlaying(on, next = true) {
    this.playing = on;
    $("play").disabled = on;
    $("pause").disabled = !on;
    $("step").disabled = on || !this.view?.agent_to_move;
    if (this.view && next) this.schedule();
  }

  stop() {
    clearTimeout(this.timer);
    this.view = null;
  }

  async replay() {
    try {
      this.onReplay(await post(`/api/games/${this.view.id}/replay`, this.auth()));
    } catch (err) {
      $("game-error").textContent = err.message;
    }
  }

  // Links that open the other human seats of this game on pages of their own.
  showSeatLinks() {
    const box = $("other-seats");
    box.replaceChildren();
    for (const [seat, token] of Object.entries(this.tokens)) {
      if (Number(seat) === this.seat) continue;
      const a = document.createElement("a");
      a.href = `/?game=${this.view.id}&seat=${seat}&token=${encodeURIComponent(token)}`;
      a.target = "_blank";
      a.textContent = `open player_${seat}'s page`;
      box.append(a, " ");
    }
  }
}
