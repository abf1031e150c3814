// A durable change refused because the store that must keep it cannot be reached (a cluster's
// PostgreSQL down, docs/scaling.md § Healing): nothing was written, and the change is not made. The
// HTTP API answers it 503 with its reason; the item room answers its request `not_written`.
export class StoreUnavailableError extends Error {
  constructor(what = "the change") {
    super(
      `the world's store cannot be reached just now: ${what} was not made (nothing was written); try again in a moment`,
    );
  }
}
