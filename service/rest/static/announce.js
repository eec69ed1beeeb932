// The ARIA live region and the visible event log. The live region keeps only
// the last few messages: a screen reader speaks each one as it is added.

const KEEP_LIVE = 6;
const KEEP_LOG = 200;

let live = null;
let log = null;

export function initAnnouncer(liveElement, logElement) {
  live = liveElement;
  log = logElement;
}

/** Say `text` through the live region, and keep it in the log unless `logged` is false. */
export function announce(text, { logged = true, seq = null } = {}) {
  if (!text || !live) return;
  const line = document.createElement("p");
  line.textContent = text;
  live.append(line);
  while (live.childElementCount > KEEP_LIVE) live.firstElementChild.remove();
  if (logged) addToLog(text, seq);
}

/** Keep `text` in the visible log without speaking it; `older` entries go below the rest. */
export function addToLog(text, seq = null, { older = false } = {}) {
  if (!log || !text) return;
  const item = document.createElement("li");
  if (seq !== null && seq !== undefined) {
    item.dataset.seq = seq;
    const number = document.createElement("span");
    number.className = "seq";
    number.textContent = `#${seq}`;
    item.append(number, " ");
  }
  item.append(text);
  if (older) log.append(item);
  else log.prepend(item);
  while (log.childElementCount > KEEP_LOG) log.lastElementChild.remove();
}

export function clearAnnouncements() {
  live?.replaceChildren();
  log?.replaceChildren();
}
