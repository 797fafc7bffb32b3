#!/usr/bin/env node
// Removes optional dependencies that the npm registry reachable here does not serve (msgpackr's
// prebuilt extensions for other platforms) from package-lock.json. Without this, `npm ci` refuses
// a lock file written by `npm install` ("Missing: ... from lock file"). Run after `npm install`.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
let removed = 0;
for (const entry of Object.values(lock.packages)) {
  for (const name of Object.keys(entry.optionalDependencies ?? {})) {
    if (!(`node_modules/${name}` in lock.packages)) {
      delete entry.optionalDependencies[name];
      removed++;
    }
  }
}
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
console.log(`prune-lock: removed ${removed} unresolvable optional dependencies`);
