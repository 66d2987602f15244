// The board: the server's SVG picture of the position, and over it one clickable shape per
// place where the seat's moves are (the server's targets: legal ones from the action mask).
// A click sends the move; several legal moves on one place (an Irk tile's placements covering
// a cell) open a chooser; an illegal place is sent too, and the server says why. The keyboard
// plays too: Tab reaches each legal place, Enter or Space plays it (or opens its chooser).

const SVG_NS = "http://www.w3.org/2000/svg";

function shape(box, className) {
  const el = document.createElementNS(SVG_NS, box.round ? "ellipse" : "rect");
  if (box.round) {
    el.setAttribute("cx", box.x + box.w / 2);
    el.setAttribute("cy", box.y + box.h / 2);
    el.setAttribute("rx", box.w / 2);
    el.setAttribute("ry", box.h / 2);
  } else {
    for (const [k, v] of [["x", box.x], ["y", box.y], ["width", box.w], ["height", box.h]]) {
      el.setAttribute(k, v);
    }
  }
  el.setAttribute("class", className);
  return el;
}

const keyOf = (box) => `${box.x},${box.y},${box.w},${box.h}`;

// Draw `picture` (SVG text with its size) into `el`; return the overlay <svg>.
export function showPicture(el, picture) {
  if (!picture.svg) { // an env without a picture: its text render, moves as buttons
    const pre = document.createElement("pre");
    pre.className = "text-board";
    pre.textContent = picture.text;
    el.replaceChildren(pre);
    el.style.aspectRatio = "";
    return document.createElementNS(SVG_NS, "svg");
  }
  el.innerHTML = picture.svg;
  const base = el.querySelector("svg");
  base.removeAttribute("width");
  base.removeAttribute("height");
  base.classList.add("picture");
  el.style.aspectRatio = `${picture.width} / ${picture.height}`;
  // up to 1.6 times its size, but never taller than the window (Irk's hand stays in sight)
  const wide = Math.max(picture.width * 1.6, 420);
  const ratio = picture.width / picture.height;
  el.style.maxWidth = `min(${wide}px, calc((100vh - 5.5em) * ${ratio.toFixed(4)}))`;
  const overlay = document.createElementNS(SVG_NS, "svg");
  overlay.setAttribute("viewBox", `0 0 ${picture.width} ${picture.height}`);
  overlay.setAttribute("class", "overlay");
  el.appendChild(overlay);
  return overlay;
}

// Show the view's picture and, on the seat's turn, its targets; `play(action)` sends a move.
export function renderBoard(el, chooser, view, play) {
  chooser.hidden = true;
  const overlay = showPicture(el, view.picture);
  if (!view.your_turn) return;
  const previews = document.createElementNS(SVG_NS, "g");
  const places = new Map(); // box key -> {box, targets}
  for (const target of view.targets) {
    for (const box of target.boxes) {
      const key = keyOf(box);
      if (!places.has(key)) places.set(key, { box, targets: [] });
      places.get(key).targets.push(target);
    }
  }
  const preview = (boxes) => {
    previews.replaceChildren(...boxes.map((b) => shape(b, "preview")));
  };
  for (const [key, place] of places) {
    const legal = place.targets.filter((t) => t.legal);
    const el2 = shape(place.box, legal.length ? "target legal" : "target illegal");
    el2.dataset.key = key;
    el2.dataset.actions = place.targets.map((t) => t.action).join(" ");
    if (legal.some((t) => t.preview.length)) el2.dataset.preview = "";
    const show = () => {
      if (legal.length === 1) preview([...legal[0].boxes, ...legal[0].preview]);
      else preview(legal.flatMap((t) => t.preview));
    };
    // where the chooser opens (x, y: the page's coordinates); from the keyboard, its first
    // choice takes the focus
    const activate = (x, y, keyboard) => {
      if (legal.length === 1) play(legal[0].action);
      else if (legal.length > 1) choose(chooser, legal, preview, play, x, y, keyboard);
      else play(place.targets[0].action); // illegal: the server explains why
    };
    el2.addEventListener("mouseenter", show);
    el2.addEventListener("mouseleave", () => preview([]));
    el2.addEventListener("click", (event) => {
      event.stopPropagation();
      activate(event.clientX, event.clientY, false);
    });
    if (legal.length) { // the legal places are reached with Tab and played with Enter or Space
      el2.setAttribute("tabindex", "0");
      el2.setAttribute("role", "button");
      el2.setAttribute("aria-label", legal.map((t) => t.label).join(" or "));
      el2.addEventListener("focus", show);
      el2.addEventListener("blur", () => preview([]));
      el2.addEventListener("keydown", (event) => {
        if (event.key !== "Enter" && event.key !== " ") return;
        event.preventDefault();
        const box = el2.getBoundingClientRect();
        activate(box.left + box.width / 2, box.top + box.height / 2, true);
      });
    }
    overlay.appendChild(el2);
  }
  overlay.appendChild(previews);
}

// Let the person pick one of several legal moves on one place (hovering previews each).
function choose(chooser, targets, preview, play, x, y, keyboard) {
  chooser.replaceChildren();
  const title = document.createElement("p");
  title.textContent = "Which move?";
  chooser.appendChild(title);
  for (const target of targets) {
    const button = document.createElement("button");
    button.textContent = target.label;
    button.dataset.action = target.action;
    button.addEventListener("mouseenter", () => preview(target.boxes));
    button.addEventListener("focus", () => preview(target.boxes));
    button.addEventListener("click", () => {
      chooser.hidden = true;
      play(target.action);
    });
    chooser.appendChild(button);
  }
  const cancel = document.createElement("button");
  cancel.textContent = "cancel";
  cancel.className = "cancel";
  cancel.addEventListener("click", () => {
    chooser.hidden = true;
    preview([]);
  });
  chooser.appendChild(cancel);
  const wrap = chooser.parentElement.getBoundingClientRect();
  chooser.style.left = `${Math.min(x - wrap.left + 8, wrap.width - 180)}px`;
  chooser.style.top = `${y - wrap.top + 8}px`;
  chooser.hidden = false;
  if (keyboard) chooser.querySelector("button").focus();
}
