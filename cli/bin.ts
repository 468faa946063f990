#!/usr/bin/env node
// `attractor`: as little as possible before the compile cache is on, so that V8's compiled code of
// every CLI bundle (main.ts with the command line, then the command) is kept between runs.
import { enableCompileCache } from '../host/code-cache';

enableCompileCache(__dirname, 'cli-', 'once');
void import('./main');
