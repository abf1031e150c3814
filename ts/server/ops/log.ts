// Structured logs: one JSON object per line on stderr, filtered by level.
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function isLogLevel(value: string): value is LogLevel {
  return value in ORDER;
}

export class Logger {
  constructor(
    private readonly level: LogLevel = "info",
    private readonly write: (line: string) => void = (line) => process.stderr.write(line + "\n"),
  ) {}

  private log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
    if (ORDER[level] < ORDER[this.level]) return;
    this.write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
  }

  debug(msg: string, fields?: Record<string, unknown>): void {
    this.log("debug", msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.log("info", msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.log("warn", msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.log("error", msg, fields);
  }
}
