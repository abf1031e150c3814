// Which authenticated sequence numbers a session has already accepted
// (docs/protocol.md § 6.1): a captured ActionPacket sent again — from the
// same address or another — carries a sequence the window has seen, or one
// too old to tell, and is refused; so a step executes once and a replay can
// never move a session. netcode's replay protection, sized for UDP's reordering.

/** Sequences kept: a packet up to this many behind the newest is still accepted once. */
export const REPLAY_WINDOW = 256;

export class ReplayWindow {
  /** received[s % REPLAY_WINDOW] is the last sequence accepted in that slot (0: none; sequences start at 1). */
  private readonly received = new Uint32Array(REPLAY_WINDOW);
  private newest = 0;
  /** The lowest sequence accepted (0: none yet, or taken over from another process: counted from 1). */
  private first = 0;

  /**
   * Accepts `sequence` (a u32 ≥ 1) once: true the first time, false for a
   * repeat, for 0, and for one REPLAY_WINDOW or more behind the newest.
   * Only call it for a packet whose tag was checked, so a forger cannot move the window.
   */
  accept(sequence: number): boolean {
    if (sequence === 0) return false;
    if (sequence + REPLAY_WINDOW <= this.newest) return false;
    const slot = sequence % REPLAY_WINDOW;
    if (this.received[slot] >= sequence) return false;
    this.received[slot] = sequence;
    if (sequence > this.newest) this.newest = sequence;
    if (this.first === 0 || sequence < this.first) this.first = sequence;
    return true;
  }

  /** The newest sequence accepted (0: none yet): a session moves to another link only with a newer one. */
  get newestAccepted(): number {
    return this.newest;
  }

  /**
   * Of the newest REPLAY_WINDOW sequences the client used (fewer at its start), how many never arrived: its
   * ActionPackets lost on the way in (or late beyond reordering). The client numbers every ActionPacket it
   * sends, so a missing number is a packet lost; the operators' console shows it as the session's loss.
   */
  inboundLoss(): { sent: number; lost: number } {
    const sent = Math.min(REPLAY_WINDOW, this.newest - Math.max(1, this.first) + 1);
    if (this.newest === 0 || sent <= 0) return { sent: 0, lost: 0 };
    const oldest = this.newest - sent; // exclusive
    let arrived = 0;
    for (const sequence of this.received) if (sequence > oldest) arrived++;
    return { sent, lost: sent - arrived };
  }

  /** The sequences accepted, for a session moving to another process (ts/cluster/handoff.ts). */
  snapshot(): { newest: number; received: number[] } {
    return { newest: this.newest, received: Array.from(this.received) };
  }

  /** Takes over what another process's window accepted: a packet replayed there is refused here too. */
  restore(saved: { newest: number; received: readonly number[] }): void {
    if (saved.received.length !== REPLAY_WINDOW) throw new Error(`a replay window holds ${REPLAY_WINDOW} sequences`);
    this.received.set(saved.received);
    this.newest = saved.newest >>> 0;
  }
}
