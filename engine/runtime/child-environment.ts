/**
 * The environment commands run with: the engine's own, without credentials. Tool nodes, tool
 * hooks and the agent's `shell` tool may run model-written code (a test gate runs the tests a
 * model wrote), so no `*_API_KEY` variable — the providers' keys among them — reaches them.
 */
export function isCredentialVariable(name: string): boolean {
  return /_API_KEY$/i.test(name);
}

export function childEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isCredentialVariable(name)));
}
