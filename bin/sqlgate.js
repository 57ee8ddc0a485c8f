#!/usr/bin/env node
// Node.js 24 runs the TypeScript sources directly (type stripping): no build step. The version is checked
// before anything is loaded: an older Node fails on the sources with a loader error that says nothing useful.
const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  process.stderr.write(
    `sqlgate needs Node.js 24 or newer; this is Node.js ${process.versions.node} (${process.execPath}).\n` +
      'From the repository, `npm start` and `npm run sqlgate -- <command>` use the Node.js 24 the project installs\n' +
      '(run `npm install` first); or install Node.js 24 (https://nodejs.org, or `nvm install 24`).\n',
  );
  process.exit(1);
}
// `sqlgate serve`: the server process runs with V8 heap flags that keep its memory flat while it streams a large
// result (README, "Memory"; measured in bench/ndjson-memory). Node reads heap flags only at start, so this
// process replaces itself (process.execve: same pid, same signals, no wrapper) with itself plus the flags. A flag
// the operator set (on the command line or in NODE_OPTIONS) is kept as given. Cluster workers inherit execArgv.
const SERVER_V8_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];
if (process.argv[2] === 'serve' && typeof process.execve === 'function') {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map(
    (a) => a.split('=')[0],
  );
  const missing = SERVER_V8_FLAGS.filter((f) => !given.includes(f.split('=')[0]));
  if (missing.length > 0) {
    try {
      process.execve(process.execPath, [
        process.execPath,
        ...process.execArgv,
        ...missing,
        ...process.argv.slice(1),
      ]);
    } catch (e) {
      // Not replaced (the platform refused): this process serves, with Node's default heap sizing.
      process.stderr.write(
        `sqlgate: serving without ${missing.join(' ')} (${e instanceof Error ? e.message : e})\n`,
      );
    }
  }
}
await import('../src/cli/main.ts');
