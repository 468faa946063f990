import path from 'node:path';
import { writeFileAtomic } from '../engine/runtime/atomic-write';
import { HttpError } from '../host/protocol/serve-api';
import type { Upload } from '../host/protocol/serve-schemas';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Files uploaded with a gate's answer, stored in the run directory (attachments/<question>/<name>)
 * so the answer can carry them as paths, as VS Code's picked files are carried. Names are reduced to
 * a safe base name; two of the same name get a numbered one.
 */
export function storeUploads(runDirectory: string, questionId: string, uploads: readonly Upload[]): string[] {
  const dir = path.join(runDirectory, 'attachments', safeName(questionId));
  const taken = new Set<string>();
  return uploads.map((upload, index) => {
    if (!BASE64.test(upload.base64)) throw new HttpError(400, `attachments[${index}].base64 is not base64`);
    let name = safeName(upload.name);
    if (taken.has(name)) name = `${index + 1}-${name}`;
    taken.add(name);
    const file = path.join(dir, name);
    writeFileAtomic(file, Buffer.from(upload.base64, 'base64'));
    return file;
  });
}

function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const safe = base.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '');
  return safe === '' ? 'attachment' : safe;
}
