// The new-game form, built from the server's catalogue: each env's parameters (read off its
// parameter dataclass) and seats. The server checks every value; its message is shown as is.

import { post } from "./api.js";

const SPEC_EXAMPLES = [
  "human", "random", "greedy", "planner", "mcts", "mcts:iterations=400",
  "expert", "expert:simulations=200", "az:PATH", "sb3:PATH", "rllib:PATH",
];

function field(param) {
  const label = document.createElement("label");
  label.className = "row";
  label.append(param.name.replaceAll("_", " ") + " ");
  let input;
  if (param.kind === "bool") {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = param.default;
  } else if (param.kind === "list") {
    input = document.createElement("textarea");
    input.rows = 4;
    input.value = param.default.join("\n");
    input.title = "one item per line";
  } else {
    input = document.createElement("input");
    input.type = param.kind === "str" ? "text" : "number";
    if (param.kind === "float") input.step = "any";
    input.value = param.default;
  }
  input.name = param.name;
  input.dataset.kind = param.kind;
  label.appendChild(input);
  return label;
}

function readField(input) {
  const kind = input.dataset.kind;
  if (kind === "bool") return input.checked;
  if (kind === "list") return input.value.split("\n").map((s) => s.trim()).filter(Boolean);
  if (kind === "int" || kind === "float") return input.value === "" ? null : Number(input.value);
  return input.value;
}

export class SetupForm {
  constructor(catalogue, start) {
    this.catalogue = catalogue;
    this.envs = new Map(catalogue.envs.map((e) => [e.name, e]));
    this.form = document.getElementById("new-game");
    this.envSelect = document.getElementById("env");
    this.error = document.getElementById("setup-error");
    const specs = new Set([...SPEC_EXAMPLES, ...catalogue.agents]);
    document.getElementById("agent-specs").replaceChildren(
      ...[...specs].map((s) => Object.assign(document.createElement("option"), { value: s })),
    );
    for (const env of catalogue.envs) {
      this.envSelect.appendChild(new Option(`${env.name}: ${env.description}`, env.name));
    }
    this.envSelect.addEventListener("change", () => this.showEnv());
    document.getElementById("params").addEventListener("change", () => this.checkParams());
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      start(this.request()).catch((err) => { this.error.textContent = err.message; });
    });
    this.showEnv();
  }

  showEnv() {
    const env = this.envs.get(this.envSelect.value);
    document.getElementById("env-description").textContent = env.hint;
    const box = document.getElementById("params");
    box.replaceChildren(box.querySelector("legend"), ...env.params.map(field));
    this.showSeats(env.seats);
    this.error.textContent = "";
  }

  params() {
    const out = {};
    for (const input of document.querySelectorAll("#params [name]")) {
      out[input.name] = readField(input);
    }
    return out;
  }

  // Ask the server how many seats these parameters make (and whether it accepts them).
  async checkParams() {
    this.form.dataset.checking = "1";
    try {
      const answer = await post("/api/setup", { env: this.envSelect.value, params: this.params() });
      this.error.textContent = "";
      const kept = this.seatSpecs();
      this.showSeats(answer.seats.map((spec, s) => (s < kept.length ? kept[s] : spec)));
    } catch (err) {
      this.error.textContent = err.message;
    } finally {
      delete this.form.dataset.checking;
    }
  }

  showSeats(specs) {
    const box = document.getElementById("seats");
    const rows = specs.map((spec, s) => {
      const label = document.createElement("label");
      label.className = "row";
      label.append(`player_${s} `);
      const input = document.createElement("input");
      input.setAttribute("list", "agent-specs");
      input.name = `seat-${s}`;
      input.className = "seat";
      input.value = spec;
      label.appendChild(input);
      return label;
    });
    box.replaceChildren(box.querySelector("legend"), ...rows);
  }

  seatSpecs() {
    return [...document.querySelectorAll("#seats input.seat")].map((i) => i.value.trim());
  }

  request() {
    const body = { env: this.envSelect.value, params: this.params(), seats: this.seatSpecs() };
    const seed = document.getElementById("seed").value.trim();
    // digits past 2**53 go as text: a number would be rounded (and seed another deal)
    const exact = /^\d+$/.test(seed) && Number.isSafeInteger(Number(seed));
    if (seed !== "") body.seed = exact ? Number(seed) : seed;
    return body;
  }
}
