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
await import('../src/cli/main.ts');
