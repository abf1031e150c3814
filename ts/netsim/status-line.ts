// The proxy's one-line live status, kept pure so its format can be tested without a terminal.

import type { LinkCounts } from "./impairment.js";
import type { ProxyCounts } from "./udp-proxy.js";

function formatDirection(name: string, counts: LinkCounts): string {
  const parts = [
    `${name} fwd ${counts.forwarded}`,
    `drop ${counts.dropped}`,
    `dup ${counts.duplicated}`,
    `queued ${counts.queued}`,
  ];
  if (counts.overflowed > 0) parts.push(`overflow ${counts.overflowed}`);
  return parts.join(" ");
}

/** E.g. "up fwd 1200 drop 61 dup 24 queued 8 | down fwd 1180 drop 59 dup 22 queued 7 | clients 2". */
export function formatStatusLine(counts: ProxyCounts): string {
  const parts = [formatDirection("up", counts.up), formatDirection("down", counts.down), `clients ${counts.clients}`];
  const problems: string[] = [];
  if (counts.clientsRejected > 0) problems.push(`rejected ${counts.clientsRejected}`);
  if (counts.strayDatagrams > 0) problems.push(`stray ${counts.strayDatagrams}`);
  if (counts.sendErrors > 0) problems.push(`send errors ${counts.sendErrors}`);
  if (problems.length > 0) parts.push(problems.join(" "));
  return parts.join(" | ");
}
