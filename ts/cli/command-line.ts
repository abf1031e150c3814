// What the project's command-line programs share (the bots, the netsim proxy, the soak): reading argv
// into options with node:util's parseArgs, the errors of a bad command line said one way, the common
// value checks, and the main() around a program — help on -h, one line and exit 2 for a bad command
// line, a stack trace and exit 1 only for what is truly unexpected. Each program keeps its own options,
// defaults and usage text; this file holds what was written out three times.
import { parseArgs } from "node:util";
import { parseSeed, ProfileError } from "../netsim/profile.js";

/** A bad command line: the program prints the message and exits with status 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The options a program takes: those with a value, the flags without one, and those given many times. */
export interface OptionNames {
  readonly values: readonly string[];
  readonly flags?: readonly string[];
  readonly repeated?: readonly string[];
}

/** One option as given: its name (without "--") and its value (true for a flag). */
export type GivenOption = readonly [name: string, value: string | true];

/**
 * argv (without node and the script) as the options it gives, in the order given (a later one may
 * override an earlier: --profile then --loss), or "help" for -h / --help anywhere. Throws UsageError
 * for an unknown option, a missing value, a value given to a flag, or a positional argument.
 */
export function readOptions(argv: readonly string[], names: OptionNames): "help" | GivenOption[] {
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }> = {
    help: { type: "boolean", short: "h" },
  };
  for (const name of names.values) options[name] = { type: "string" };
  for (const name of names.repeated ?? []) options[name] = { type: "string", multiple: true };
  for (const name of names.flags ?? []) options[name] = { type: "boolean" };
  let tokens;
  try {
    tokens = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false, tokens: true }).tokens;
  } catch (error) {
    throw usageErrorOf(error as Error);
  }
  const given: GivenOption[] = [];
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    if (token.name === "help") return "help";
    given.push([token.name, token.value ?? true]);
  }
  return given;
}

/** node:util's messages name the option ("Unknown option '--colour'"); ours say it the tools' way. */
function usageErrorOf(error: Error): UsageError {
  const message = error.message;
  const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(message);
  const missing = /Option '(?:-\w, )?(--[\w-]+)[^']*' argument (?:missing|is ambiguous)/.exec(message);
  const flagValue = /Option '(?:-\w, )?(--[\w-]+)' does not take an argument/.exec(message);
  const positional = /Unexpected argument '([^']+)'/.exec(message);
  if (unknown) return new UsageError(`unknown option ${unknown[1]}`);
  if (missing) return new UsageError(`${missing[1]} needs a value`);
  if (flagValue) return new UsageError(`${flagValue[1]} takes no value`);
  if (positional) return new UsageError(`unexpected argument "${positional[1]}"`);
  return new UsageError(message);
}

/** A whole number in [min, max], written in digits. */
export function integerOption(text: string, what: string, min: number, max: number): number {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) throw new UsageError(`${what} must be an integer ${min}..${max}, got "${text}"`);
  return value;
}

/** A seed, 0..4294967295 (the netsim's rule, shared by every program that takes one). */
export function seedOption(text: string, what: string): number {
  try {
    return parseSeed(text);
  } catch (error) {
    if (error instanceof ProfileError) throw new UsageError(`${what}: ${error.message}`);
    throw error;
  }
}

/** What a program's main() is made of. */
export interface Program<Options> {
  /** The name its messages start with ("bots: …"). */
  readonly name: string;
  /** The text -h / --help prints. */
  readonly usage: string;
  /** argv to the options, or "help"; throws UsageError for a bad command line. */
  readonly parse: (argv: readonly string[]) => { kind: "help" } | { kind: "run"; options: Options };
  /** Runs the program; resolves to its exit status. */
  readonly run: (options: Options) => Promise<number>;
  /**
   * Once run has resolved, the process exits after this many ms even if a straggler (a socket, a timer)
   * would keep it; absent, it ends when nothing is left to do.
   */
  readonly lingerMs?: number;
}

/** Runs `program` on this process's argv and sets the exit status (2: bad command line, 1: a failure). */
export function runProgram<Options>(program: Program<Options>): void {
  const main = async (): Promise<number> => {
    let command;
    try {
      command = program.parse(process.argv.slice(2));
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      process.stderr.write(`${program.name}: ${error.message}\nTry --help for the options.\n`);
      return 2;
    }
    if (command.kind === "help") {
      process.stdout.write(program.usage);
      return 0;
    }
    return program.run(command.options);
  };
  main().then(
    (status) => {
      process.exitCode = status;
      if (program.lingerMs !== undefined) setTimeout(() => process.exit(status), program.lingerMs).unref();
    },
    (error: unknown) => {
      process.stderr.write(
        `${program.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
      if (program.lingerMs !== undefined) process.exit(1);
    },
  );
}
