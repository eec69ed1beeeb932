// The signed receipts this tab was given for a match (its seat's actions, the seat's
// taking, the host's start and bots, refusals too), kept in sessionStorage: the
// player's evidence, offered for download after the match (docs/AUDIT.md).

export const receiptsKey = (id) => `daifugo:receipts:${id}`;

export function keptReceipts(id) {
  return JSON.parse(sessionStorage.getItem(receiptsKey(id)) ?? "[]");
}

/** Keep `receipts` (signed records; null and empty entries are skipped) for match `id`. */
export function keepReceipts(id, receipts) {
  const given = (receipts ?? []).filter(Boolean);
  if (!given.length) return;
  sessionStorage.setItem(receiptsKey(id), JSON.stringify([...keptReceipts(id), ...given]));
}
