#!/usr/bin/env node
// `npx pmail …` inside this repository: the TypeScript CLI (bin/pmail-cli.ts) through tsx.
import { register } from 'tsx/esm/api';

register();
await import('./pmail-cli.ts');
