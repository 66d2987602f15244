// The result of a finished game: the game's closing line (who won and why) and a table of
// its result details, one column per seat where a detail has one value per seat.

function cell(tag, text) {
  const el = document.createElement(tag);
  el.textContent = text;
  return el;
}

const show = (value) => {
  if (Array.isArray(value)) {
    if (!value.length) return "none";
    return value.map((v) => (Array.isArray(v) ? `[${v.join(" ")}]` : v)).join(" ");
  }
  return value === null ? "-" : String(value);
};

// Details that are lists but not one value per seat.
const SHARED = new Set(["colors", "winner", "winners", "discards"]);

export function showResult(el, result, seats) {
  el.hidden = !result;
  el.replaceChildren();
  if (!result) return;
  el.appendChild(cell("p", result.summary)).className = "summary";
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  head.append(cell("th", ""), ...seats.map((s) => cell("th", `player_${s.seat}`)));
  const body = table.createTBody();
  const row = (name, values) => {
    const tr = body.insertRow();
    tr.append(cell("th", name), ...values.map((v) => cell("td", show(v))));
  };
  row("return", result.returns.map((r) => (r > 0 ? `+${r}` : `${r}`)));
  const shared = [];
  for (const [key, value] of Object.entries(result.info)) {
    if (Array.isArray(value) && value.length === seats.length && !SHARED.has(key)) {
      row(key.replaceAll("_", " "), value);
    } else {
      shared.push(`${key.replaceAll("_", " ")}: ${show(value)}`);
    }
  }
  // four players' details are wider than the panel: they scroll sideways inside it
  el.appendChild(document.createElement("div")).className = "details";
  el.lastChild.appendChild(table);
  for (const line of shared) el.appendChild(cell("p", line));
}
