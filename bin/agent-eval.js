#!/usr/bin/env -S node --max-semi-space-size=64
// The `agent-eval` command: runs the TypeScript entry point through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('../main.ts');
