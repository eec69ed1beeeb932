// Two tiny DOM helpers every module uses.

export function $(id) {
  return document.getElementById(id);
}

/** Whether a key press belongs to a text field or select (then page shortcuts keep off). */
export function typing(target) {
  return target instanceof HTMLElement && Boolean(target.closest("input, select, textarea, [contenteditable]"));
}
