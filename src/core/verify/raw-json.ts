interface RawJsonApi {
  rawJSON(text: string): object;
  isRawJSON(value: unknown): boolean;
}
// Node 24 has JSON.rawJSON / JSON.isRawJSON (and reviver source text); TypeScript's ES2024 lib lacks them.
const json = JSON as unknown as RawJsonApi;

/** A value JSON.stringify writes as `text` verbatim: how exact numbers leave the gateway unrounded. */
export const rawJson = (text: string): object => json.rawJSON(text);

/** The source text of a `JSON.rawJSON` value, or undefined for anything else. */
export const rawJsonText = (value: unknown): string | undefined =>
  json.isRawJSON(value) ? (value as { rawJSON: string }).rawJSON : undefined;
