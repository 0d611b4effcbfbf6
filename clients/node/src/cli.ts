/** What the package's command line programs share: flag parsing, usage errors, the entry point. */

import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** A bad command line: the program prints its message (if any) and its usage. */
export class UsageError extends Error {}

/**
 * Walk the arguments: `take(name, value, argument)` for each, where `value()` reads the flag's
 * value (`--name=value` or `--name value`; a missing value is a UsageError) and `argument` is
 * the argument as given.
 */
export function eachArgument(argv: readonly string[],
  take: (name: string, value: () => string, argument: string) => void): void {
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i] ?? "";
    if (flag === "--help" || flag === "-h") throw new UsageError("");
    const eq = flag.indexOf("=");
    const [name, inline] = flag.startsWith("--") && eq > 0 ? [flag.slice(0, eq), flag.slice(eq + 1)] : [flag, undefined];
    take(name, () => {
      if (inline !== undefined) return inline;
      i += 1;
      const next = argv[i];
      if (next === undefined) throw new UsageError(`${name} needs a value`);
      return next;
    }, flag);
  }
}

/** Print a usage error as `program: message` and the usage; the exit code (0 for --help). */
export function usageExit(program: string, usage: string, error: UsageError): number {
  process.stderr.write(`${error.message ? `${program}: ${error.message}\n` : ""}${usage}\n`);
  return error.message ? 2 : 0;
}

/** Run `main` with the arguments when the module at `moduleUrl` is the program node started. */
export function runIfEntryPoint(moduleUrl: string, main: (argv: readonly string[]) => Promise<number>): void {
  const script = process.argv[1];
  if (script === undefined) return;
  try {
    if (realpathSync(script) !== realpathSync(fileURLToPath(moduleUrl))) return;
  } catch {
    return;
  }
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
}
