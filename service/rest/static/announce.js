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

/** Say `text` through the live region, and keep it in the log unless `logged` is false
 * (`shown`: what the log shows the eye, when it differs from the words). */
export function announce(text, { logged = true, seq = null, shown = null } = {}) {
  if (!text || !live) return null;
  const line = document.createElement("p");
  line.textContent = text;
  live.append(line);
  while (live.childElementCount > KEEP_LIVE) live.firstElementChild.remove();
  return logged ? addToLog(text, seq, { shown }) : null;
}

/** Keep `text` in the visible log without speaking it; `older` entries go below the rest.
 * With `shown` (symbols: "7♠ 7♥") the eye sees that and a screen reader hears `text`. */
export function addToLog(text, seq = null, { older = false, shown = null } = {}) {
  if (!log || !text) return null;
  const item = document.createElement("li");
  if (seq !== null && seq !== undefined) {
    item.dataset.seq = seq;
    const number = document.createElement("span");
    number.className = "seq";
    number.textContent = `#${seq}`;
    item.append(number, " ");
  }
  if (shown && shown !== text) {
    const eye = document.createElement("span");
    eye.setAttribute("aria-hidden", "true");
    eye.className = "shown";
    eye.textContent = shown;
    const ear = document.createElement("span");
    ear.className = "visually-hidden words";
    ear.textContent = text;
    item.append(eye, ear);
  } else item.append(text);
  if (older) log.append(item);
  else log.prepend(item);
  while (log.childElementCount > KEEP_LOG) log.lastElementChild.remove();
  return item;
}

/** Add to a log entry (a lock to the play that started it), for the eye and the ear. */
export function extendLogItem(item, shownSuffix, wordsSuffix) {
  if (!item) return;
  const eye = item.querySelector(".shown");
  const ear = item.querySelector(".words");
  if (eye && ear) {
    eye.append(shownSuffix);
    ear.append(wordsSuffix);
  } else item.append(wordsSuffix);
}

export function clearAnnouncements() {
  live?.replaceChildren();
  log?.replaceChildren();
}
