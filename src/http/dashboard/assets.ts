import type { FastifyInstance } from 'fastify';
import { setSecurityHeaders } from './layout.ts';

/** The dashboard's only stylesheet: served from the app so the CSP can forbid inline styles. */
const CSS = `
:root { --fg:#1b1f24; --muted:#57606a; --bg:#fff; --line:#d0d7de; --accent:#0b5cad; --ok:#1a7f37; --bad:#b42318;
  --add:#dafbe1; --del:#ffebe9; font-family: system-ui, sans-serif; color: var(--fg); background: var(--bg); }
body { margin: 0; line-height: 1.5; }
header { display:flex; flex-wrap:wrap; align-items:center; gap:1rem; padding:.75rem 1.5rem; border-bottom:1px solid var(--line); }
header nav { display:flex; flex:1; flex-wrap:wrap; align-items:center; justify-content:space-between; gap:1rem; }
header ul { display:flex; gap:1rem; list-style:none; margin:0; padding:0; }
.brand { font-weight:700; font-size:1.15rem; color:var(--fg); text-decoration:none; }
a { color: var(--accent); }
a[aria-current="page"] { font-weight:700; text-decoration-thickness:3px; }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem; }
main:focus { outline: none; }
.skip { position:absolute; left:-999px; }
.visually-hidden { position:absolute; width:1px; height:1px; overflow:hidden; clip-path: inset(50%); white-space:nowrap; }
.skip:focus { left: 1rem; top: .5rem; background: var(--bg); padding: .25rem .5rem; }
:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
form.stack { display:grid; gap:.75rem; max-width: 24rem; }
form.inline { display:flex; flex-wrap:wrap; align-items:end; gap:.75rem; }
label { display:grid; gap:.25rem; font-weight:600; }
input, select, button { font: inherit; padding:.4rem .6rem; border:1px solid var(--muted); border-radius:4px; }
button { background: var(--accent); color:#fff; border-color: var(--accent); cursor:pointer; }
button.secondary { background: var(--bg); color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
dl.meta { display:grid; grid-template-columns: max-content 1fr; gap:.25rem 1rem; }
dl.meta dt { font-weight:600; } dl.meta dd { margin:0; }
.actions { display:flex; flex-wrap:wrap; gap:.75rem; align-items:center; margin: 1rem 0; }
.signout { display:flex; align-items:center; gap:.5rem; }
.who { color: var(--muted); }
.error { color: var(--bad); font-weight:600; }
.notice { border-left:4px solid var(--ok); padding:.5rem 1rem; background:#f6fff8; }
.budget meter { display:block; width:100%; max-width:28rem; height:1.2rem; }
.budget.warn label { font-weight:600; }
table { border-collapse: collapse; width:100%; margin: 1rem 0; }
th, td { text-align:left; padding:.4rem .6rem; border-bottom:1px solid var(--line); vertical-align: top; }
td.num, th.num { text-align:right; font-variant-numeric: tabular-nums; }
code, pre { font-family: ui-monospace, monospace; }
.secret { display:flex; gap:.5rem; align-items:center; flex-wrap:wrap; }
.secret code { padding:.4rem .6rem; background:#f6f8fa; border:1px solid var(--line); word-break: break-all; }
.cards { display:grid; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap:1rem; margin:0; }
.cards div { border:1px solid var(--line); border-radius:6px; padding:.75rem 1rem; }
.cards dt { color: var(--muted); }
.cards dd { margin:0; font-size:1.5rem; font-weight:700; }
.chart { width:100%; max-width: 60rem; height:auto; }
.diff { display:grid; grid-template-columns: 1fr 1fr; gap:1rem; }
.diff pre { margin:0; padding:.5rem; border:1px solid var(--line); overflow-x:auto; white-space: pre-wrap; }
del { background: var(--del); text-decoration: line-through; }
ins { background: var(--add); text-decoration: none; }
.pager { display:flex; gap:1rem; align-items:center; }
.status-ok { color: var(--ok); } .status-error { color: var(--bad); }
@media (max-width: 40rem) { .diff { grid-template-columns: 1fr; } }
.note { color: var(--muted); font-size: .9em; }
.cards dd.note { font-size: .9rem; font-weight: 400; }
.failure { border-left:4px solid var(--bad); padding:.5rem 1rem; background:#fff5f5; }
.failure pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
th a { color: inherit; }
caption { text-align: left; font-weight: 600; }
pre, code { overflow-wrap: anywhere; }
/* Narrow screens (390 px phones): wide tables scroll inside themselves, the page never sideways. */
@media (max-width: 40rem) {
  header, main { padding: .75rem 1rem; }
  header ul, header nav { flex-wrap: wrap; gap: .5rem 1rem; }
  .who { overflow-wrap: anywhere; }
  table { display: block; overflow-x: auto; position: relative; }
  form.inline > * { min-width: 0; max-width: 100%; }
  input, select { max-width: 100%; box-sizing: border-box; }
}
`;

/** Copy buttons: the only script. Progressive: without it the key is still shown and selectable. */
const JS = `
document.addEventListener('click', function (e) {
  var b = e.target instanceof Element ? e.target.closest('[data-copy]') : null;
  if (!b) return;
  var el = document.getElementById(b.getAttribute('data-copy'));
  if (!el || !navigator.clipboard) return;
  navigator.clipboard.writeText(el.textContent.trim()).then(function () {
    var s = document.getElementById(b.getAttribute('data-copy') + '-status');
    if (s) s.textContent = 'Copied.';
  });
});
`;

/** A served icon, so browsers do not ask for /favicon.ico (a 404 in every page's console). */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b5cad"/><path d="M4 11h8M4 8h8M4 5h5" stroke="#fff" stroke-width="1.5"/></svg>`;

export const registerAssets = (app: FastifyInstance): void => {
  app.get('/assets/favicon.svg', { schema: { hide: true } }, (_req, reply) => {
    setSecurityHeaders(reply);
    return reply.header('Cache-Control', 'public, max-age=86400').type('image/svg+xml').send(ICON);
  });
  app.get('/assets/dashboard.css', { schema: { hide: true } }, (_req, reply) => {
    setSecurityHeaders(reply);
    return reply.header('Cache-Control', 'public, max-age=300').type('text/css; charset=utf-8').send(CSS);
  });
  app.get('/assets/dashboard.js', { schema: { hide: true } }, (_req, reply) => {
    setSecurityHeaders(reply);
    return reply
      .header('Cache-Control', 'public, max-age=300')
      .type('text/javascript; charset=utf-8')
      .send(JS);
  });
};
