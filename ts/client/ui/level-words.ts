// What the page says of a character that grows (issue 39): the log's line when the own level rises, and
// the experience as the canvas reports it (data-xp). The numbers come from the client core's ProgressView
// (core/progress.ts); the words are here, once.
import type { Progress } from "../core/progress.js";

/** The log's line for a level reached. */
export function levelUpLine(level: number): string {
  return `You reached level ${level}.`;
}

/** "170/300 xp" on the way through a level, "9600 xp (highest level)" at the top. */
export function progressText(progress: Progress): string {
  return progress.nextXp === 0 ? `${progress.xp} xp (highest level)` : `${progress.xp}/${progress.nextXp} xp`;
}

/** The log's line for experience gained ("+12 experience"). */
export function experienceGainLine(xp: number): string {
  return `+${xp} experience`;
}
