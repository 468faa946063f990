const MiB = 1024 * 1024;

/** A byte count as people read it: 512 bytes, 117 KiB, 2.5 MiB. Browser-safe (the webview uses it too). */
export function formatBytes(bytes: number): string {
  if (bytes >= MiB) return `${Number.isInteger(bytes / MiB) ? bytes / MiB : (bytes / MiB).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}
