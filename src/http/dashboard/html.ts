/**
 * A tiny escaping template: every interpolated value is HTML-escaped unless it is already `SafeHtml`
 * (the result of another `html` template, or of `trusted` for markup built in code, never from input).
 */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

export const escapeHtml = (s: string): string => s.replace(/[&<>"'`]/g, (c) => ENTITIES[c] ?? c);

const render = (v: HtmlValue): string => {
  if (v instanceof SafeHtml) return v.value;
  if (v === null || v === undefined || v === false) return '';
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
};

export const html = (strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml => {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
};

/** Marks markup built by this code (never user input) as safe to insert as is. */
export const trusted = (markup: string): SafeHtml => new SafeHtml(markup);
