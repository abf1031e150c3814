// What services read of the simulation's time. The Game advances it (step())
// and owns the tick ↔ window rule; services only read the two numbers they need.

export interface Clock {
  /** Last processed tick; the first tick processed is 1. */
  readonly tick: number;
  /** The first movement window that has not executed yet. */
  readonly nextWindow: number;
}
