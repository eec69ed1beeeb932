// The new-table form: preset, players, every local rule of the preset as a
// toggle (its English name, its Japanese one and its meaning), games per set, times, and who sits
// where: you, a bot (random, greedy, stronger, expert) or an invited friend, and
// whether open seats are by invite only or anyone's from the lobby. The rules are
// grouped by docs/RULES.md section (GET /presets says which), searchable, and every
// field is checked in place before anything is sent.

import { api, requestId } from "./api.js";
import { $ } from "./dom.js";
import { ruleInfo } from "./rules.js";

// each number field: its limits (those POST /matches checks) and what to call it
const NUMBERS = {
  "new-games": { min: 1, max: 100, whole: true, empty: "preset", name: "Games per set" },
  "new-turn": { min: 0, max: 3600, name: "The turn time limit" },
  "new-delay": { min: 0, max: 3600, name: "The spectator delay" },
  "new-bot-pause": { min: 0, max: 10, name: "The bots' wait" },
};

const SEAT_CHOICES = [
  ["invite", "Open: invite a friend"],
  ["random", "Bot: random"],
  ["greedy", "Bot: greedy"],
  ["stronger", "Bot: stronger"],
  ["expert", "Bot: expert (searches each play)"],
];

export class NewTable {
  constructor(onCreated) {
    this.onCreated = onCreated;
    this.presets = null;
    this.busy = false;
    $("new-preset").addEventListener("change", () => this.renderRules());
    $("new-players").addEventListener("change", () => this.renderSeats());
    $("new-host-only").addEventListener("change", () => {
      this.renderSeats();
      if ($("new-name").getAttribute("aria-invalid")) this.checkName();
    });
    $("new-name").addEventListener("change", () => this.checkName());
    $("new-rule-search").addEventListener("input", () => this.filterRules());
    for (const id of Object.keys(NUMBERS)) $(id).addEventListener("change", () => this.checkNumber(id));
    $("new-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.create();
    });
  }

  async open() {
    $("new-error").textContent = "";
    if (!this.presets) {
      try {
        const answer = await api.presets();
        this.presets = answer;
      } catch (error) {
        $("new-error").textContent = `Could not load the presets: ${error.message}`;
        return;
      }
      this.renderRules();
    }
    this.renderSeats();
  }

  preset() {
    return this.presets?.presets.find((item) => item.name === $("new-preset").value);
  }

  renderRules() {
    const preset = this.preset();
    if (!preset) return;
    $("new-games").value = String(preset.options.games_per_set);
    $("new-games").placeholder = String(preset.options.games_per_set);
    // one group per docs/RULES.md section, each a fieldset with its own list
    $("new-rules").replaceChildren(
      ...this.presets.sections.map((part) => {
        const group = document.createElement("fieldset");
        group.className = "rule-group";
        group.dataset.section = part.section;
        const legend = document.createElement("legend");
        legend.textContent = `${part.section} ${part.title}`;
        const count = document.createElement("span");
        count.className = "hint rule-group-count";
        const list = document.createElement("ul");
        list.className = "rule-toggles";
        list.replaceChildren(...part.rules.map((name) => this.ruleItem(name, preset)));
        group.append(legend, count, list);
        return group;
      }),
    );
    this.filterRules();
  }

  ruleItem(name, preset) {
    const [japanese, english, meaning] = ruleInfo(name);
    const item = document.createElement("li");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.id = `rule-${name}`;
    box.name = name;
    box.dataset.rule = name;
    const value = preset.options[name];
    box.checked = value === true || (typeof value === "string" && value !== "");
    const label = document.createElement("label");
    label.htmlFor = box.id;
    const en = document.createElement("span");
    en.className = "rule-name";
    en.textContent = english;
    const jp = document.createElement("span");
    jp.lang = "ja";
    jp.className = "jp";
    jp.textContent = japanese;
    label.append(en, " ", jp);
    const about = document.createElement("span");
    about.className = "hint";
    about.id = `rule-${name}-about`;
    about.textContent = meaning;
    box.setAttribute("aria-describedby", about.id);
    item.append(box, label, about);
    item.dataset.words = `${name} ${name.replaceAll("_", " ")} ${japanese} ${english} ${meaning}`.toLowerCase();
    if (name === "eleven_back") item.append(this.elevenBackChoice(value, box));
    return item;
  }

  /** Eleven-back reverses the strength order or the turn order: the choice beside its toggle. */
  elevenBackChoice(value, box) {
    const row = document.createElement("span");
    row.className = "rule-choice";
    const label = document.createElement("label");
    label.htmlFor = "rule-eleven_back-kind";
    label.textContent = "It reverses";
    const select = document.createElement("select");
    select.id = "rule-eleven_back-kind";
    for (const [kind, text] of [["strength", "the strength order"], ["order", "the turn order"]]) {
      const option = document.createElement("option");
      option.value = kind;
      option.textContent = text;
      select.append(option);
    }
    select.value = value === "order" ? "order" : "strength";
    select.disabled = !box.checked;
    box.addEventListener("change", () => {
      select.disabled = !box.checked;
    });
    row.append(label, " ", select);
    return row;
  }

  /** The search box shows only the rules whose names or meaning hold its words;
   *  a section with none of them is put away, and each says how many it shows. */
  filterRules() {
    const words = $("new-rule-search").value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    let total = 0;
    for (const group of $("new-rules").querySelectorAll(".rule-group")) {
      const items = [...group.querySelectorAll("li")];
      let here = 0;
      for (const item of items) {
        const hit = words.every((word) => item.dataset.words.includes(word));
        item.hidden = !hit;
        if (hit) here += 1;
      }
      group.hidden = here === 0;
      group.querySelector(".rule-group-count").textContent = words.length
        ? `${here} of ${items.length} shown`
        : `${items.length} rules`;
      shown += here;
      total += items.length;
    }
    $("new-rule-count").textContent = words.length ? `${shown} of ${total} rules shown` : "";
  }

  /** A number field checked in place: its message beside it, the field marked. */
  checkNumber(id) {
    const limits = NUMBERS[id];
    const field = $(id);
    const text = field.value.trim();
    const value = Number(text);
    let problem = "";
    if (text === "" && limits.empty) problem = "";
    else if (text === "" || !Number.isFinite(value) || field.validity.badInput) problem = `${limits.name} must be a number.`;
    else if (limits.whole && !Number.isInteger(value)) problem = `${limits.name} must be a whole number.`;
    else if (value < limits.min || value > limits.max) {
      problem = `${limits.name} must be from ${limits.min} to ${limits.max}; ${text} is not.`;
    }
    $(`${id}-error`).textContent = problem;
    if (problem) field.setAttribute("aria-invalid", "true");
    else field.removeAttribute("aria-invalid");
    return !problem;
  }

  /** Your name, checked in place: other players see it, so it is asked for (only
   *  hosting takes no seat and no name). */
  checkName() {
    const field = $("new-name");
    const needed = !$("new-host-only").checked;
    const problem = needed && !field.value.trim() ? "Enter your name: the other players see it at your seat." : "";
    $("new-name-error").textContent = problem;
    if (problem) field.setAttribute("aria-invalid", "true");
    else field.removeAttribute("aria-invalid");
    field.required = needed;
    return !problem;
  }

  renderSeats() {
    const players = Number($("new-players").value);
    const hostOnly = $("new-host-only").checked;
    const list = $("new-seats");
    const previous = new Map(
      [...list.querySelectorAll("select")].map((select) => [select.dataset.seat, select.value]),
    );
    const items = [];
    for (let seat = 0; seat < players; seat += 1) {
      const item = document.createElement("li");
      if (seat === 0 && !hostOnly) {
        item.textContent = "Seat 0: you";
        item.dataset.seat = "0";
        items.push(item);
        continue;
      }
      const label = document.createElement("label");
      const select = document.createElement("select");
      select.id = `new-seat-${seat}`;
      select.dataset.seat = String(seat);
      label.htmlFor = select.id;
      label.textContent = `Seat ${seat}`;
      for (const [value, text] of SEAT_CHOICES) {
        const option = document.createElement("option");
        option.value = value;
        option.textContent = text;
        select.append(option);
      }
      select.value = previous.get(String(seat)) ?? "greedy";
      item.append(label, " ", select);
      items.push(item);
    }
    list.replaceChildren(...items);
  }

  body() {
    const preset = this.preset();
    const options = {};
    for (const box of $("new-rules").querySelectorAll("input[data-rule]")) {
      const name = box.dataset.rule;
      const value = preset.options[name];
      const on = value === true || (typeof value === "string" && value !== "");
      if (name === "eleven_back") {
        const chosen = box.checked ? $("rule-eleven_back-kind").value : "";
        if (chosen !== (value || "")) options[name] = chosen || false;
      } else if (box.checked !== on) options[name] = box.checked;
    }
    const bots = {};
    for (const select of $("new-seats").querySelectorAll("select")) {
      if (select.value !== "invite") bots[select.dataset.seat] = select.value;
    }
    const number = (id, fallback) => {
      const value = Number($(id).value);
      return Number.isFinite(value) && value >= 0 ? value : fallback;
    };
    return {
      preset: preset.name,
      players: Number($("new-players").value),
      options,
      bots,
      seat: $("new-host-only").checked ? null : 0,
      name: $("new-name").value.trim(),
      games_per_set: $("new-games").value.trim() === "" ? 0 : Number($("new-games").value), // 0: the preset's
      turn_time_limit: number("new-turn", 0),
      spectator_delay: number("new-delay", 0),
      auto_start: $("new-auto-start").checked,
      lobby: $("new-lobby").checked,
      bot_pause: Math.min(10, number("new-bot-pause", 0.8)),
    };
  }

  async create() {
    if (this.busy || !this.preset()) return;
    // every number checked in place; the first wrong one takes the focus, nothing is sent
    const wrong = Object.keys(NUMBERS).filter((id) => !this.checkNumber(id));
    if (!this.checkName()) wrong.push("new-name");
    // the focus goes to the first wrong field in the form's order
    wrong.sort((a, b) => ($(a).compareDocumentPosition($(b)) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    if (wrong.length) {
      $("new-error").textContent = "Correct the marked fields first.";
      $(wrong[0]).focus();
      return;
    }
    this.busy = true;
    $("new-error").textContent = "";
    $("new-create").setAttribute("aria-disabled", "true");
    const body = this.body();
    try {
      const table = await api.create({ ...body, request_id: requestId() });
      this.onCreated(table, body);
    } catch (failure) {
      $("new-error").textContent = `Could not create the table (${failure.code}): ${failure.detail ?? failure.message}`;
    } finally {
      this.busy = false;
      $("new-create").setAttribute("aria-disabled", "false");
    }
  }
}
