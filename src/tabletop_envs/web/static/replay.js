// Stepping through a game record: the server rebuilds its positions (after checking the
// record like any untrusted file) and sends each as watch draws it, caption included.

import { get } from "./api.js";
import { showPicture } from "./board.js";
import { showResult } from "./result.js";

const $ = (id) => document.getElementById(id);
const PLAY_MS = 600;

export class ReplayPage {
  constructor() {
    this.view = null;
    this.timer = null;
    $("first").addEventListener("click", () => this.go(0));
    $("back").addEventListener("click", () => this.go(this.view.position - 1));
    $("forward").addEventListener("click", () => this.go(this.view.position + 1));
    $("last").addEventListener("click", () => this.go(this.view.last));
    $("position").addEventListener("input", (e) => this.go(Number(e.target.value)));
    $("replay-play").addEventListener("click", () => this.togglePlay());
    document.addEventListener("keydown", (event) => {
      if ($("replay").hidden || !this.view) return;
      if (event.key === "ArrowRight") this.go(this.view.position + 1);
      if (event.key === "ArrowLeft") this.go(this.view.position - 1);
    });
  }

  open(view) {
    this.stopPlaying();
    this.show(view);
  }

  show(view) {
    this.view = view;
    $("replay-board").dataset.position = view.position;
    $("replay-title").textContent = `${view.env}: ${view.agents.join(" vs ")}`;
    $("replay-caption").textContent = view.caption;
    showPicture($("replay-board"), view.picture);
    const range = $("position");
    range.max = view.last;
    range.value = view.position;
    $("replay-position").textContent = `position ${view.position} of ${view.last}`;
    $("first").disabled = $("back").disabled = view.position === 0;
    $("forward").disabled = $("last").disabled = view.position === view.last;
    const seats = view.agents.map((agent, seat) => ({ seat, agent }));
    showResult($("replay-result"), view.result, seats);
  }

  async go(k) {
    if (!this.view || k < 0 || k > this.view.last) return;
    try {
      this.show(await get(`/api/replays/${this.view.id}/${k}`));
      $("replay-error").textContent = "";
    } catch (err) {
      $("replay-error").textContent = err.message;
      this.stopPlaying();
    }
  }

  togglePlay() {
    if (this.timer) return this.stopPlaying();
    $("replay-play").textContent = "Pause";
    const tick = async () => {
      if (!this.view || this.view.position >= this.view.last) return this.stopPlaying();
      await this.go(this.view.position + 1);
      if (this.timer) this.timer = setTimeout(tick, PLAY_MS);
    };
    this.timer = setTimeout(tick, 0);
  }

  stopPlaying() {
    clearTimeout(this.timer);
    this.timer = null;
    $("replay-play").textContent = "Play";
  }
}
