// The table page: photos sent as soon as they are taken, progress and standings kept fresh,
// and the review's corrections sent as they are made. No framework, nothing fetched from outside.
"use strict";

function element(tag, text, attributes) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);  // text, never markup
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
  return node;
}

async function send(url, body) {
  const response = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json", "Accept": "application/json"},
                                     body: JSON.stringify(body)});
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.detail || response.statusText);
  return answer;
}

// Sending: a photo goes as soon as it is chosen; the page never waits for the reading.
for (const input of document.querySelectorAll("input[data-autosend]")) {
  input.addEventListener("change", async () => {
    const form = input.form, label = input.closest("label");
    label.classList.add("sending");
    try {
      const response = await fetch(form.action, {method: "POST", body: new FormData(form), headers: {"Accept": "application/json"}});
      if (!response.ok) alert((await response.json()).detail);
    } finally {
      label.classList.remove("sending");
      input.value = "";
      refreshGame();
    }
  });
}

function fillGame(state) {
  const photos = document.getElementById("photos");
  photos.replaceChildren(...state.photos.map(p => element("li", `${p.sent_as}: ${p.status}${p.error ? ": " + p.error : ""}`,
                                                          {"data-status": p.status})));
  const sheets = document.querySelector("#sheets tbody");
  sheets.replaceChildren(...state.sheets.map(s => {
    const row = element("tr");
    const link = element("a", `photo ${s.photo}, sheet ${s.number}`, {href: `/sheets/${s.id}`});
    const crop = element("img", null, {src: s.name_crop, alt: "name box", class: "crop"});
    [link, crop, s.player_name || "not matched", s.total, s.corrected ? "corrected" : s.verdict].forEach((value, i) => {
      const cell = element("td", value instanceof Node ? null : value);
      if (value instanceof Node) cell.append(value);
      if (i === 4) cell.className = `verdict-${s.verdict}`;
      row.append(cell);
    });
    return row;
  }));
  const standings = document.querySelector("#standings tbody");
  standings.replaceChildren(...state.standings.map(s => {
    const row = element("tr");
    [`${s.place}${s.shared ? "=" : ""}`, s.player, s.total, s.leaves_left, s.verdict].forEach(v => row.append(element("td", v)));
    return row;
  }));
  document.getElementById("winner").textContent = state.winners.length ? `Winner: ${state.winners.join(", ")}` : "";
}

async function refreshGame() {
  const game = document.getElementById("game");
  if (!game) return;
  const response = await fetch(`/api/games/${game.dataset.game}`, {headers: {"Accept": "application/json"}});
  if (response.ok) fillGame(await response.json());
}

if (document.getElementById("game")) {
  refreshGame();
  setInterval(refreshGame, 1500);
}

// Review: every cell's reading drawn on the sheet; a tap opens the cell's editor.
const review = document.getElementById("review");
const NAMES = {".": "", "L": "lantern", "B": "bamboo", "T": "tree", "R": "rock", "M": "moss", "=": "bridge"};

function fillSheet(state) {
  const late = new Set(state.garden.tree_late.map(([r, c]) => `${r},${c}`));
  const doubtful = new Set(state.check.filter(d => d.what.startsWith("cell")).map(d => d.what));
  for (const cell of review.querySelectorAll("g.cell")) {
    const r = Number(cell.dataset.row), c = Number(cell.dataset.col);
    const letter = state.garden.cells[r][c];
    cell.querySelector(".label").textContent = NAMES[letter] + (late.has(`${r},${c}`) ? "*" : "") +
                                               (state.garden.water[r][c] === "~" ? " ~" : "");
    const points = state.cell_points[r][c];
    cell.querySelector(".points").textContent = points ? (points > 0 ? `+${points}` : `${points}`) : "";
    cell.classList.toggle("doubt", doubtful.has(`cell (${r + 1},${c + 1})`));
  }
  for (const td of review.querySelectorAll("#breakdown td")) td.textContent = state.score[td.dataset.category];
  document.getElementById("total").textContent = state.score.total;
  document.getElementById("check").replaceChildren(...state.check.map(d => element("li", `${d.what}: ${d.reading} (${Math.round(d.confidence * 100)}%)`)));
  document.getElementById("findings").replaceChildren(...state.findings.map(f => element("li", f.sentence)));
  document.getElementById("corrections").replaceChildren(...state.corrections.map(c => element("li", `${c.what}: read as ${c.was}, corrected to ${c.now}`)));
  review.state = state;
}

async function correct(path, body) {
  const status = document.getElementById("status");
  try {
    const answer = await send(`/api/sheets/${review.dataset.sheet}/${path}`, body);
    fillSheet(answer.sheet);
    status.textContent = `Saved. Total ${answer.sheet.score.total}.`;
  } catch (error) {
    status.textContent = error.message;
  }
}

if (review) {
  fillSheet(JSON.parse(document.getElementById("state").textContent));
  const dialog = document.getElementById("cell-editor"), form = dialog.querySelector("form");
  let editing = null;
  for (const cell of review.querySelectorAll("g.cell")) {
    cell.addEventListener("click", () => {
      const r = Number(cell.dataset.row), c = Number(cell.dataset.col), state = review.state;
      editing = [r, c];
      document.getElementById("cell-name").textContent = `(${r + 1},${c + 1})`;
      form.decoration.value = state.garden.cells[r][c];
      form.water.checked = state.garden.water[r][c] === "~";
      form.late.checked = state.garden.tree_late.some(([a, b]) => a === r && b === c);
      dialog.showModal();
    });
  }
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "save" && editing) {
      correct("cell", {row: editing[0], col: editing[1], decoration: form.decoration.value,
                       water: form.water.checked, late: form.late.checked});
    }
  });
  for (const input of review.querySelectorAll("#written input")) {
    input.addEventListener("change", () => correct("written", {category: input.dataset.category, value: Number(input.value)}));
  }
  for (const input of review.querySelectorAll("#turns input")) {
    input.addEventListener("change", () => correct("turn", {index: Number(input.dataset.index), text: input.value}));
  }
  document.getElementById("player").addEventListener("change", async event => {
    const value = event.target.value;
    await send(`/api/sheets/${review.dataset.sheet}/player`, {player: value === "" ? null : Number(value)});
    document.getElementById("status").textContent = "Saved.";
  });
}
