#!/usr/bin/env node
// `attractor`: as little as possible before the compile cache is on, so that Node ≥ 22.1 keeps
// V8's compiled code of every CLI bundle (main.ts with commander, then the command) between runs.
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
void import('./main');
