import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHandlerRegistry, shapes, type Handler } from '../engine';
import { isRecord } from '../engine/model/json';

class HandlersModuleError extends Error {
  override readonly name = 'HandlersModuleError';
}

/**
 * Loads each module (ESM or CommonJS, a path from the current directory) and registers what it
 * exports as `handlers` (or its default export): an object of handler type, or Graphviz shape, to
 * a handler `{ execute(input) → Outcome }`, the library's `Handler`. A name that is a shape
 * (`hexagon`) replaces the handler that shape runs; any other name serves nodes of that `type`.
 */
export async function loadCustomHandlers(modules: readonly string[]): Promise<ReturnType<typeof createHandlerRegistry> | undefined> {
  if (modules.length === 0) return undefined;
  const registry = createHandlerRegistry();
  for (const module of modules) {
    const file = path.resolve(module);
    let loaded: Record<string, unknown>;
    try {
      loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (error) {
      throw new HandlersModuleError(`--handlers ${module}: cannot load it (${error instanceof Error ? error.message : String(error)})`);
    }
    const exported = loaded['handlers'] ?? loaded['default'];
    if (!isRecord(exported)) throw new HandlersModuleError(`--handlers ${module}: export an object of handlers as "handlers" (or as the default export)`);
    for (const [name, handler] of Object.entries(exported)) {
      if (!isRecord(handler) || typeof handler['execute'] !== 'function') throw new HandlersModuleError(`${module}: handler "${name}" has no execute function`);
      const type = shapes.find((info) => info.shape === name)?.handler ?? name;
      registry.register(type, handler as unknown as Handler);
    }
  }
  return registry;
}
