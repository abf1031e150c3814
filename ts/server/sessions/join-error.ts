// Why a session could not start (a join or a login refused), and the HTTP status the API answers with.
/** A refused join, with the HTTP status the API answers it with (503: server full). */
export class JoinError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
