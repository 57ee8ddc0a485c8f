import { describe, expect, it } from 'vitest';
import { escapeHtml, html, trusted } from './html.ts';

describe('html', () => {
  it('escapes every interpolation', () => {
    const name = '<script>alert("x")</script>';
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</p>',
    );
  });
  it('nests templates and arrays without double escaping', () => {
    const items = ['a&b', "c'd"].map((s) => html`<li>${s}</li>`);
    // Another name for the tag, so the formatter leaves the exact markup alone.
    const tag = html;
    expect(tag`<ul>${items}</ul>`.value).toBe('<ul><li>a&amp;b</li><li>c&#39;d</li></ul>');
  });
  it('renders nothing for null, undefined and false, and numbers as text', () => {
    expect(html`${null}${undefined}${false}${0}${trusted('<b>')}`.value).toBe('0<b>');
    expect(escapeHtml('`')).toBe('&#96;');
  });
});
