import { readFileSync } from 'node:fs';

/** The outcome of reading one setting: its value, or why the text is refused (config.ts names the variable). */
export type Parsed<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/**
 * A setting a part of the gateway declares and `config.ts` reads for it (the only reader of the environment):
 * the variable's name, the default shown by `sqlgate serve --help`, a help text and a parser. `parse` gets the
 * trimmed text, or undefined when the variable is unset or blank.
 *
 * @example const port = setting('SQLGATE_X_PORT', '443', 'port of X', wholeNumber(443, 1, 65535));
 */
export type Setting<T> = {
  readonly name: string;
  readonly default: string;
  readonly help: string;
  /** A secret: never shown, never logged; a warehouse names the variable, never its value. */
  readonly secret?: boolean;
  readonly parse: (raw: string | undefined) => Parsed<T>;
};

export const setting = <T>(
  name: string,
  dflt: string,
  help: string,
  parse: (raw: string | undefined) => Parsed<T>,
  opts: { secret?: boolean } = {},
): Setting<T> => ({ name, default: dflt, help, parse, ...(opts.secret === true ? { secret: true } : {}) });

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const refuse = (message: string): Parsed<never> => ({ ok: false, message });

/** Any text; undefined when unset. */
export const optionalText =
  () =>
  (raw: string | undefined): Parsed<string | undefined> =>
    ok(raw);

/** A text matching `pattern` (described by `what` in the message); undefined when unset. */
export const optionalMatching =
  (pattern: RegExp, what: string) =>
  (raw: string | undefined): Parsed<string | undefined> =>
    raw === undefined || pattern.test(raw) ? ok(raw) : refuse(`expected ${what}, got "${raw}"`);

/** A whole number from `min` to `max`. */
export const wholeNumber =
  (dflt: number, min: number, max: number) =>
  (raw: string | undefined): Parsed<number> => {
    if (raw === undefined) return ok(dflt);
    if (!/^\d+$/.test(raw)) return refuse(`expected a whole number, got "${raw}"`);
    const n = Number(raw);
    return n < min || n > max ? refuse(`expected a number from ${min} to ${max}, got ${n}`) : ok(n);
  };

/** A whole number from `min` up (e.g. a byte count); undefined when unset. */
export const optionalWholeNumber =
  (min: number) =>
  (raw: string | undefined): Parsed<number | undefined> => {
    if (raw === undefined) return ok(undefined);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)))
      return refuse(`expected a whole number, got "${raw}"`);
    const n = Number(raw);
    return n < min ? refuse(`expected a number of at least ${min}, got ${n}`) : ok(n);
  };

/** A non-negative number (a price). */
export const nonNegative =
  (dflt: number) =>
  (raw: string | undefined): Parsed<number> => {
    if (raw === undefined) return ok(dflt);
    const n = Number(raw);
    return !Number.isFinite(n) || n < 0 || !/^[0-9.eE+-]+$/.test(raw)
      ? refuse(`expected a non-negative number, got "${raw}"`)
      : ok(n);
  };

/** One of a closed set of words; undefined when unset. */
export const optionalOneOf =
  <T extends string>(allowed: readonly T[]) =>
  (raw: string | undefined): Parsed<T | undefined> =>
    raw === undefined || (allowed as readonly string[]).includes(raw)
      ? ok(raw as T | undefined)
      : refuse(`expected one of ${allowed.join(', ')}, got "${raw}"`);

/** A URL with one of `schemes`; undefined when unset. The message never repeats the value (it may hold a password). */
export const optionalUrl =
  (schemes: readonly string[]) =>
  (raw: string | undefined): Parsed<string | undefined> => {
    if (raw === undefined) return ok(undefined);
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      return refuse('expected a URL');
    }
    return schemes.includes(parsed.protocol.replace(/:$/, ''))
      ? ok(raw)
      : refuse(`expected a URL with scheme ${schemes.join(' or ')}`);
  };

/** The contents of a readable file, with its path; undefined when unset. Read once, at start. */
export const optionalFile =
  () =>
  (raw: string | undefined): Parsed<{ readonly path: string; readonly text: string } | undefined> => {
    if (raw === undefined) return ok(undefined);
    try {
      return ok({ path: raw, text: readFileSync(raw, 'utf8') });
    } catch {
      return refuse(`cannot read ${raw}`);
    }
  };
