import type { ShadowCheckRecord } from '../../../store/shadow-checks.ts';
import { html } from '../html.ts';
import { formatTime } from '../layout.ts';

const OUTCOME_TEXT: Record<ShadowCheckRecord['outcome'], string> = {
  match: 'The original query, run again after the response, returned the same rows.',
  mismatch:
    'The original query returned a different result from the rewritten one. The rules below no longer apply to queries of this shape until an operator re-enables them (sqlgate rules enable).',
  inconclusive:
    'The results differed, but the rewritten query run again matched the original: the data changed in between or the query is not deterministic. Nothing was quarantined.',
  error: 'The check could not be completed.',
};

/** The query detail page's section on its shadow verification check, when it was checked. */
export const shadowCheckSection = (c: ShadowCheckRecord | undefined) => {
  if (!c) return '';
  return html`<section aria-labelledby="shadow-h" data-testid="shadow-check" data-outcome="${c.outcome}">
    <h2 id="shadow-h">Shadow verification: ${c.outcome}</h2>
    <p>${OUTCOME_TEXT[c.outcome]}</p>
    <table>
      <tbody>
        <tr>
          <th scope="row">Rules checked</th>
          <td>${c.rules.join(', ')}</td>
        </tr>
        <tr>
          <th scope="row">Rows (original / rewritten)</th>
          <td>${String(c.originalRows ?? '—')} / ${String(c.rewrittenRows ?? '—')}</td>
        </tr>
        <tr>
          <th scope="row">Query shape</th>
          <td><code>${c.shapeDigest}</code></td>
        </tr>
        ${
          c.detail
            ? html`<tr>
                <th scope="row">Detail</th>
                <td>${c.detail}</td>
              </tr>`
            : ''
        }
        <tr>
          <th scope="row">Checked</th>
          <td>${formatTime(c.checkedAt)}</td>
        </tr>
      </tbody>
    </table>
  </section>`;
};
