import packageJson from '../../package.json';

declare const ATTRACTOR_BUILD_COMMIT: string | undefined;

export const engineVersion: string = packageJson.version;

/** The commit the bundle was built from (esbuild defines it); "unknown" rather than a guess. */
export const engineCommit: string = typeof ATTRACTOR_BUILD_COMMIT === 'string' && ATTRACTOR_BUILD_COMMIT ? ATTRACTOR_BUILD_COMMIT : 'unknown';
